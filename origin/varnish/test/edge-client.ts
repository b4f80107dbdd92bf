/**
 * Clients for an edge we do not own the sockets of (varnishd, nginx): the segment-size cap the origin's
 * tests put on their listening socket is put here on the client's socket before it connects, so the
 * MSS it advertises caps what the edge sends (TCP_MAXSEG before connect → the SYN's MSS option).
 */
import { createRequire } from 'node:module';
import { Agent } from 'node:http';
import { Socket } from 'node:net';
import { ETHERNET_MSS, get, type Fetched, type FetchOptions } from '../../middleware/test/helpers.js';

export { ETHERNET_MSS };

const AF_INET = 2;
const SOCK_STREAM = 1;
const IPPROTO_TCP = 6;
const TCP_MAXSEG = 2;

interface Libc {
  socket(domain: number, type: number, protocol: number): number;
  setsockopt(fd: number, level: number, name: number, value: Buffer, len: number): number;
  connect(fd: number, addr: Buffer, len: number): number;
  close(fd: number): number;
  errno(): number;
}

let libc: Libc | undefined;
function loadLibc(): Libc {
  if (libc) return libc;
  const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
  const lib = koffi.load('libc.so.6');
  libc = {
    socket: lib.func('int socket(int, int, int)'),
    setsockopt: lib.func('int setsockopt(int, int, int, const void *, uint32_t)'),
    connect: lib.func('int connect(int, const void *, uint32_t)'),
    close: lib.func('int close(int)'),
    errno: () => koffi.errno(),
  } as Libc;
  return libc;
}

/** A TCP connection to an IPv4 host:port whose segments are capped at `mss` bytes in both directions. */
export function connectWithMss(host: string, port: number, mss = ETHERNET_MSS): Socket {
  const c = loadLibc();
  const octets = host.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) {
    throw new Error(`connectWithMss needs an IPv4 address, got ${host}`);
  }
  const fd = c.socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw new Error(`socket() failed: errno ${c.errno()}`);
  const value = Buffer.alloc(4);
  value.writeInt32LE(mss);
  const addr = Buffer.alloc(16);
  addr.writeUInt16LE(AF_INET, 0);
  addr.writeUInt16BE(port, 2);
  for (let i = 0; i < 4; i++) addr[4 + i] = octets[i]!;
  // A blocking connect: on loopback the handshake completes at once; libuv makes the fd non-blocking.
  if (c.setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, value, 4) !== 0 || c.connect(fd, addr, addr.length) !== 0) {
    const errno = c.errno();
    c.close(fd);
    throw new Error(`connect to ${host}:${port} with MSS ${mss} failed: errno ${errno}`);
  }
  return new Socket({ fd, readable: true, writable: true });
}

/** An http.Agent whose connections advertise Ethernet's MSS; keep-alive, one socket, so requests share it. */
export class MssAgent extends Agent {
  constructor(readonly mss = ETHERNET_MSS) {
    super({ keepAlive: true, maxSockets: 1 });
  }
  override createConnection(options: { host?: string | null; port?: number | null }): Socket {
    return connectWithMss(options.host ?? '127.0.0.1', Number(options.port), this.mss);
  }
}

/** One kept-alive Ethernet-MSS connection to `base`, warmed past the kernel's unpaced first segments. */
export async function warmMssAgent(base: { url: string }, warmPath: string): Promise<MssAgent> {
  const agent = new MssAgent();
  const r = await get(base, warmPath, { agent });
  if (r.status !== 200) throw new Error(`warm-up GET ${warmPath} answered ${r.status}`);
  return agent;
}

export { get, type Fetched, type FetchOptions };

/**
 * Linux socket options the origin needs, called through koffi (FFI, prebuilt: no compiler, no shelling out).
 * Every function throws `SocketOptionError` on failure; callers decide whether to fall back.
 */
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { parseTcpInfo, TCP_INFO_MAX_BYTES, type TcpInfo } from './tcp-info.js';

const SOL_SOCKET = 1;
const SO_MAX_PACING_RATE = 47;
const SO_SNDBUF = 7;
const SO_RCVBUF = 8;
const IPPROTO_TCP = 6;
const TCP_INFO = 11;
const TCP_CONGESTION = 13;
const TCP_MAXSEG = 2;
const TCP_NOTSENT_LOWAT = 25;
const AF_INET = 2;
const SOCK_STREAM = 1;
/** TCP_CA_NAME_MAX in the kernel. */
const CONGESTION_NAME_MAX = 16;
/** `~0` as u64: no pacing ceiling. */
const UNLIMITED = 0xffff_ffff_ffff_ffffn;

export class SocketOptionError extends Error {}

interface Libc {
  setsockopt(fd: number, level: number, name: number, value: Buffer, len: number): number;
  getsockopt(fd: number, level: number, name: number, value: Buffer, len: Uint32Array): number;
  socket(domain: number, type: number, protocol: number): number;
  close(fd: number): number;
  /** ioctl(fd, request, int *out). */
  ioctlInt(fd: number, request: number, out: Int32Array): number;
  errno(): number;
}

let libc: Libc | null | undefined;
let loadError: string | undefined;

/** Loads libc once; null (with `loadError` set) off Linux or when koffi cannot load. */
function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  if (process.platform !== 'linux') {
    loadError = `kernel pacing needs Linux (this is ${process.platform})`;
    return (libc = null);
  }
  try {
    // koffi is CommonJS with a native part; createRequire keeps this module ESM.
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const lib = koffi.load('libc.so.6');
    libc = {
      setsockopt: lib.func('int setsockopt(int, int, int, const void *, uint32_t)'),
      // Plain pointers: koffi hands a Buffer's or typed array's memory over as it is, where _Out_/_Inout_ would
      // marshal a JS array both ways on every call.
      getsockopt: lib.func('int getsockopt(int, int, int, void *, uint32_t *)'),
      socket: lib.func('int socket(int, int, int)'),
      close: lib.func('int close(int)'),
      ioctlInt: lib.func('int ioctl(int, unsigned long, int *)'),
      errno: () => koffi.errno(),
    } as Libc;
  } catch (err) {
    loadError = `cannot load libc through koffi: ${(err as Error).message}`;
    libc = null;
  }
  return libc;
}

function requireLibc(): Libc {
  const c = loadLibc();
  if (!c) throw new SocketOptionError(loadError ?? 'libc unavailable');
  return c;
}

/** The file descriptor under a plain TCP socket; undefined for TLS, pipes or closed sockets. */
export function socketFd(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

function set(fd: number, level: number, name: number, value: Buffer, what: string): void {
  const c = requireLibc();
  if (c.setsockopt(fd, level, name, value, value.length) !== 0) {
    throw new SocketOptionError(`setsockopt(${what}) failed on fd ${fd}: errno ${c.errno()}`);
  }
}

/**
 * One buffer and one length cell for every read: each getsockopt and ioctl is synchronous and its result parsed at
 * once, and a fresh Buffer plus a length array marshalled both ways cost about three times the call itself (a
 * TCP_INFO read: 4.5–6.1 µs against 1.7–1.9 µs, 200,000 reads each). Every busy connection reads TCP_INFO.
 */
const readBuffer = Buffer.alloc(TCP_INFO_MAX_BYTES);
const lengthCell = new Uint32Array(1);
const intCell = new Int32Array(1);

/** The option's bytes, valid only until the next read: parse them at once. */
function get(fd: number, level: number, name: number, size: number, what: string): Buffer {
  const c = requireLibc();
  const buf = size <= readBuffer.length ? readBuffer : Buffer.alloc(size);
  lengthCell[0] = size;
  if (c.getsockopt(fd, level, name, buf, lengthCell) !== 0) {
    throw new SocketOptionError(`getsockopt(${what}) failed on fd ${fd}: errno ${c.errno()}`);
  }
  return buf.subarray(0, lengthCell[0]);
}

/** Sets SO_MAX_PACING_RATE (the kernel's unit: bytes per second); `null` removes the ceiling. */
export function setMaxPacingRate(fd: number, paceBytesPerSecond: number | null): void {
  const value = Buffer.alloc(8);
  value.writeBigUInt64LE(paceBytesPerSecond === null ? UNLIMITED : BigInt(Math.round(paceBytesPerSecond)));
  set(fd, SOL_SOCKET, SO_MAX_PACING_RATE, value, 'SO_MAX_PACING_RATE');
}

/** Sets an int option (a 32-bit value, rounded). */
function setInt(fd: number, level: number, name: number, value: number, what: string, unsigned = false): void {
  const buf = Buffer.alloc(4);
  if (unsigned) buf.writeUInt32LE(Math.round(value));
  else buf.writeInt32LE(Math.round(value));
  set(fd, level, name, buf, `${what} ${value}`);
}

/** Sets SO_SNDBUF (the kernel doubles it, and caps it at net.core.wmem_max). */
export function setSendBuffer(fd: number, bytes: number): void {
  setInt(fd, SOL_SOCKET, SO_SNDBUF, bytes, 'SO_SNDBUF');
}

/**
 * Sets TCP_NOTSENT_LOWAT: the socket takes writes only while fewer than `bytes` written bytes are still
 * unsent (bytes in flight do not count); 0 restores the system default (net.ipv4.tcp_notsent_lowat).
 */
export function setNotSentLowat(fd: number, bytes: number): void {
  setInt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, bytes, 'TCP_NOTSENT_LOWAT', true);
}

/**
 * Sets SO_RCVBUF (the kernel doubles it): a small one keeps a client's advertised window small, so
 * its TCP acknowledges no faster than it reads (tests emulate slow links and stalled readers with it).
 */
export function setReceiveBuffer(fd: number, bytes: number): void {
  setInt(fd, SOL_SOCKET, SO_RCVBUF, bytes, 'SO_RCVBUF');
}

/**
 * Caps the segment size (TCP_MAXSEG). Set on a listening socket it applies to every connection it accepts.
 * Loopback segments are up to 64 KB: tests and benchmarks cap them to Ethernet's 1448 bytes so the kernel
 * paces in realistic steps instead of 64 KB lumps.
 */
export function setMaxSegmentSize(fd: number, bytes: number): void {
  setInt(fd, IPPROTO_TCP, TCP_MAXSEG, bytes, 'TCP_MAXSEG');
}

export function setCongestionControl(fd: number, name: string): void {
  set(fd, IPPROTO_TCP, TCP_CONGESTION, Buffer.from(name, 'latin1'), `TCP_CONGESTION ${name}`);
}

export function getCongestionControl(fd: number): string {
  const raw = get(fd, IPPROTO_TCP, TCP_CONGESTION, CONGESTION_NAME_MAX, 'TCP_CONGESTION');
  const nul = raw.indexOf(0);
  return raw.subarray(0, nul < 0 ? raw.length : nul).toString('latin1');
}

/** SIOCOUTQ (= TIOCOUTQ): bytes in the send queue, written by the application and not yet acknowledged. */
const SIOCOUTQ = 0x5411;
/** SIOCOUTQNSD: bytes in the send queue not yet sent. */
const SIOCOUTQNSD = 0x894b;

function ioctlCount(fd: number, request: number, what: string): number {
  const c = requireLibc();
  intCell[0] = 0;
  if (c.ioctlInt(fd, request, intCell) !== 0) throw new SocketOptionError(`ioctl(${what}) failed on fd ${fd}: errno ${c.errno()}`);
  return intCell[0]!;
}

/**
 * Bytes the socket holds that the peer has not acknowledged (sent or not). With TCP_INFO bytes_acked
 * it gives the stream offset of everything written so far, in the kernel's own byte count — the only
 * one that holds under TLS, whose records and handshake Node's bytesWritten does not see.
 */
export function sendQueueBytes(fd: number): number {
  return ioctlCount(fd, SIOCOUTQ, 'SIOCOUTQ');
}

/** Bytes the socket holds unsent (TCP_INFO's notsent, at the cost of one int rather than the whole struct). */
export function unsentQueueBytes(fd: number): number {
  return ioctlCount(fd, SIOCOUTQNSD, 'SIOCOUTQNSD');
}

export function readTcpInfo(fd: number): TcpInfo {
  return parseTcpInfo(get(fd, IPPROTO_TCP, TCP_INFO, TCP_INFO_MAX_BYTES, 'TCP_INFO'));
}

/**
 * Whether this process can pace sockets in the kernel: tries SO_MAX_PACING_RATE on a fresh,
 * unconnected TCP socket. Returns the reason when it cannot.
 */
export function probeKernelPacing(): { available: true } | { available: false; reason: string } {
  const c = loadLibc();
  if (!c) return { available: false, reason: loadError ?? 'libc unavailable' };
  const fd = c.socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return { available: false, reason: `socket() failed: errno ${c.errno()}` };
  try {
    setMaxPacingRate(fd, 1_000_000);
    setMaxPacingRate(fd, null);
    return { available: true };
  } catch (err) {
    return { available: false, reason: (err as Error).message };
  } finally {
    c.close(fd);
  }
}

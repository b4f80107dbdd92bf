/**
 * A raw HTTP/2 client over TLS for hostile-client tests: it writes frames byte by byte, as an attacker
 * or a broken client would (HEADERS and RST_STREAM in one write, zero windows, floods), and records
 * every frame the server sends, so a test can see END_STREAM flags, RST_STREAM codes and GOAWAY that
 * node:http2's client hides. Header blocks are sent as HPACK literals (no table, no Huffman); the
 * server's header blocks are not decoded, only counted.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

export const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;
export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4 } as const;
export const SETTING = {
  HEADER_TABLE_SIZE: 1,
  ENABLE_PUSH: 2,
  MAX_CONCURRENT_STREAMS: 3,
  INITIAL_WINDOW_SIZE: 4,
  MAX_FRAME_SIZE: 5,
} as const;
export const ERROR_CODE = { NO_ERROR: 0, STREAM_CLOSED: 5, CANCEL: 8, ENHANCE_YOUR_CALM: 11 } as const;

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** HPACK integer with an N-bit prefix (RFC 7541 §5.1). */
function hpackInteger(value: number, prefixBits: number, firstByte: number): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([firstByte | value]);
  const out = [firstByte | max];
  let rest = value - max;
  while (rest >= 128) {
    out.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return Buffer.from(out);
}

function hpackString(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  return Buffer.concat([hpackInteger(bytes.length, 7, 0), bytes]);
}

/** A header block of literals without indexing and with new names (RFC 7541 §6.2.2). */
export function headerBlock(headers: Array<[string, string]>): Buffer {
  return Buffer.concat(headers.flatMap(([name, value]) => [Buffer.from([0]), hpackString(name), hpackString(value)]));
}

/** The pseudo-headers of a GET for `path` on `authority`, then `extra`. */
export function getHeaders(path: string, authority = 'localhost', extra: Array<[string, string]> = []): Buffer {
  return headerBlock([[':method', 'GET'], [':scheme', 'https'], [':authority', authority], [':path', path], ...extra]);
}

export function settingsPayload(settings: Record<number, number>): Buffer {
  const entries = Object.entries(settings);
  const payload = Buffer.alloc(entries.length * 6);
  entries.forEach(([id, value], i) => {
    payload.writeUInt16BE(Number(id), i * 6);
    payload.writeUInt32BE(value, i * 6 + 2);
  });
  return payload;
}

export function rstStream(streamId: number, code: number = ERROR_CODE.CANCEL): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(code);
  return frame(FRAME.RST_STREAM, 0, streamId, payload);
}

export function windowUpdate(streamId: number, increment: number): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(increment);
  return frame(FRAME.WINDOW_UPDATE, 0, streamId, payload);
}

export function ping(data = Buffer.alloc(8)): Buffer {
  return frame(FRAME.PING, 0, 0, data);
}

/** What the server sent on one stream. */
export interface StreamSeen {
  headers: number;
  dataBytes: number;
  endStream: boolean;
  /** RST_STREAM code, when the server reset it. */
  rstCode?: number;
  /** Was END_STREAM seen before any RST_STREAM? */
  endedBeforeReset: boolean;
}

export interface RawH2Session {
  socket: TLSSocket;
  /** The TCP socket under TLS (`tcp.resetAndDestroy()` sends a TCP reset, as a killed client does). */
  tcp: Socket;
  frames: Frame[];
  streams: Map<number, StreamSeen>;
  /** The first GOAWAY the server sent, if any (a later one may follow as it closes). */
  goaway?: { lastStreamId: number; code: number };
  closed: Promise<void>;
  isClosed(): boolean;
  write(...chunks: Buffer[]): void;
  /** Next client stream id (odd, increasing). */
  nextStreamId(): number;
  /** HEADERS for a GET (END_STREAM, END_HEADERS) on a new stream; returns its id. */
  get(path: string, extra?: Array<[string, string]>): number;
  destroy(): void;
}

export interface RawH2Options {
  port: number;
  host?: string;
  /** Our SETTINGS (e.g. `{ [SETTING.INITIAL_WINDOW_SIZE]: 0 }`). */
  settings?: Record<number, number>;
  /** Connection-level window to add at once (bytes). Default 0: the RFC's 65 535. */
  connectionWindow?: number;
  /** Acknowledge the server's SETTINGS and answer its PINGs, as any client does. Default true. */
  polite?: boolean;
  /** Give back every DATA frame's bytes at once (WINDOW_UPDATE on the stream and the connection), as a reading client does. Default true. */
  reading?: boolean;
}

export function rawH2(opts: RawH2Options): Promise<RawH2Session> {
  return new Promise((resolve, reject) => {
    const tcp = tcpConnect(opts.port, opts.host ?? '127.0.0.1');
    const socket = tlsConnect({ socket: tcp, servername: 'localhost', ALPNProtocols: ['h2'], rejectUnauthorized: false });
    const frames: Frame[] = [];
    const streams = new Map<number, StreamSeen>();
    let pending = Buffer.alloc(0);
    let streamId = 1;
    let isClosed = false;
    const polite = opts.polite ?? true;
    const reading = opts.reading ?? true;
    const closed = new Promise<void>((done) => socket.once('close', () => ((isClosed = true), done())));
    const seen = (id: number): StreamSeen => {
      let s = streams.get(id);
      if (!s) streams.set(id, (s = { headers: 0, dataBytes: 0, endStream: false, endedBeforeReset: false }));
      return s;
    };
    const session: RawH2Session = {
      socket,
      tcp,
      frames,
      streams,
      closed,
      isClosed: () => isClosed,
      write: (...chunks) => {
        if (!socket.destroyed) socket.write(Buffer.concat(chunks));
      },
      nextStreamId: () => {
        const id = streamId;
        streamId += 2;
        return id;
      },
      get: (path, extra) => {
        const id = session.nextStreamId();
        session.write(frame(FRAME.HEADERS, FLAG.END_STREAM | FLAG.END_HEADERS, id, getHeaders(path, 'localhost', extra)));
        return id;
      },
      destroy: () => socket.destroy(),
    };
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 9) {
        const length = pending.readUIntBE(0, 3);
        if (pending.length < 9 + length) break;
        const f: Frame = {
          type: pending[3]!,
          flags: pending[4]!,
          streamId: pending.readUInt32BE(5) & 0x7fffffff,
          payload: pending.subarray(9, 9 + length),
        };
        pending = pending.subarray(9 + length);
        frames.push(f);
        if (f.type === FRAME.HEADERS) seen(f.streamId).headers++;
        if (f.type === FRAME.HEADERS || f.type === FRAME.DATA) {
          const s = seen(f.streamId);
          if (f.type === FRAME.DATA) {
            s.dataBytes += f.payload.length;
            if (reading && f.payload.length > 0) {
              const updates = [windowUpdate(0, f.payload.length)];
              if (!(f.flags & FLAG.END_STREAM)) updates.push(windowUpdate(f.streamId, f.payload.length));
              session.write(...updates);
            }
          }
          if (f.flags & FLAG.END_STREAM) {
            s.endStream = true;
            if (s.rstCode === undefined) s.endedBeforeReset = true;
          }
        }
        if (f.type === FRAME.RST_STREAM) seen(f.streamId).rstCode ??= f.payload.readUInt32BE(0);
        if (f.type === FRAME.GOAWAY)
          session.goaway ??= { lastStreamId: f.payload.readUInt32BE(0) & 0x7fffffff, code: f.payload.readUInt32BE(4) };
        if (polite && f.type === FRAME.SETTINGS && !(f.flags & FLAG.ACK)) session.write(frame(FRAME.SETTINGS, FLAG.ACK, 0));
        if (polite && f.type === FRAME.PING && !(f.flags & FLAG.ACK)) session.write(frame(FRAME.PING, FLAG.ACK, 0, f.payload));
      }
    });
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      if (socket.alpnProtocol !== 'h2') return reject(new Error(`ALPN: ${String(socket.alpnProtocol)}`));
      socket.off('error', reject);
      socket.on('error', () => {}); // a reset by the server is an outcome the test reads, not an error
      const start = [PREFACE, frame(FRAME.SETTINGS, 0, 0, settingsPayload(opts.settings ?? {}))];
      if (opts.connectionWindow) start.push(windowUpdate(0, opts.connectionWindow));
      session.write(...start);
      resolve(session);
    });
  });
}

/** Open file descriptors of this process (Linux). */
export async function openFds(): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir('/proc/self/fd')).length;
}

/** Open fds of this process whose target ends with `suffix` (a served file). */
export async function openFdsTo(suffix: string): Promise<number> {
  const { readdir, readlink } = await import('node:fs/promises');
  let n = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    try {
      if ((await readlink(`/proc/self/fd/${fd}`)).endsWith(suffix)) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

/**
 * A raw HTTP/1.1 client on one TCP socket, for what node:http's client cannot do: pipelining, reading
 * at a chosen rate, stopping mid-body, a small receive window. It parses Content-Length responses as
 * bytes arrive and timestamps each one's boundaries.
 */
import { connect, type Socket } from 'node:net';
import { parseServerTiming } from 'sammy-pacing-protocol';
import { readTcpInfo, setReceiveBuffer, socketFd } from '../src/socket/socket-options.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** Bytes of the head (status line, headers, blank line). */
  headBytes: number;
  contentLength: number;
  /** Body bytes received so far. */
  received: number;
  body: Buffer[];
  /** performance.now() when the head was complete, when the first and the last body byte arrived. */
  headAt: number;
  firstBodyAt?: number;
  lastBodyAt?: number;
  /** Server-Timing sammy-id: the response's delivery record. */
  recordId?: number;
  complete: boolean;
}

export interface RawConnection {
  socket: Socket;
  /** Responses in order, the last one possibly incomplete. */
  responses: RawResponse[];
  /** Resolves when `n` responses are complete (rejects if the connection closes first). */
  complete(n: number): Promise<RawResponse[]>;
  /** Called after each chunk of body bytes (for abort points and throttling). */
  onBody?: (response: RawResponse, connection: RawConnection) => void;
  /** Bytes of the stream the client's kernel has received (TCP_INFO bytes_received), heads included. */
  kernelReceived(): number;
  closed: boolean;
}

export function request(path: string, headers: Record<string, string> = {}): string {
  const lines = [`GET ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Connects; `receiveBuffer` (bytes, doubled by the kernel) caps the window the client advertises. */
export function connectRaw(port: number, opts: { receiveBuffer?: number } = {}): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const responses: RawResponse[] = [];
    let pending: Buffer = Buffer.alloc(0);
    let waiters: Array<{ n: number; resolve: (r: RawResponse[]) => void; reject: (e: Error) => void }> = [];
    const raw: RawConnection = {
      socket,
      responses,
      closed: false,
      complete: (n) =>
        new Promise((res, rej) => {
          waiters.push({ n, resolve: res, reject: rej });
          settle();
        }),
      kernelReceived: () => {
        const fd = socketFd(socket);
        return fd === undefined ? 0 : Number(readTcpInfo(fd).bytesReceived ?? 0n);
      },
    };
    const settle = () => {
      const done = responses.filter((r) => r.complete).length;
      waiters = waiters.filter((w) => {
        if (done >= w.n) w.resolve(responses.slice(0, w.n));
        else if (raw.closed) w.reject(new Error(`connection closed after ${done} of ${w.n} responses`));
        else return true;
        return false;
      });
    };
    const parse = (chunk: Buffer) => {
      const now = performance.now();
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length > 0) {
        const current = responses.at(-1);
        if (current && !current.complete) {
          const n = Math.min(pending.length, current.contentLength - current.received);
          if (n > 0) {
            current.body.push(pending.subarray(0, n));
            current.received += n;
            current.firstBodyAt ??= now;
            current.lastBodyAt = now;
            pending = pending.subarray(n);
          }
          if (current.received === current.contentLength) current.complete = true;
          raw.onBody?.(current, raw);
          if (!current.complete) return;
          continue;
        }
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.subarray(0, end).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        const response: RawResponse = {
          status: Number(head[0]!.split(' ')[1]),
          headers,
          headBytes: end + 4,
          contentLength: Number(headers['content-length'] ?? 0),
          received: 0,
          body: [],
          headAt: now,
          recordId: parseServerTiming(headers['server-timing'] ?? '').recordId,
          complete: false,
        };
        response.complete = response.contentLength === 0;
        responses.push(response);
        pending = pending.subarray(end + 4);
        if (response.complete) raw.onBody?.(response, raw);
      }
    };
    socket.on('data', (chunk: Buffer) => {
      parse(chunk);
      settle();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      raw.closed = true;
      settle();
    });
    socket.once('connect', () => {
      socket.off('error', reject);
      const fd = socketFd(socket);
      if (opts.receiveBuffer !== undefined && fd !== undefined) setReceiveBuffer(fd, opts.receiveBuffer);
      resolve(raw);
    });
    socket.once('error', reject);
  });
}

/**
 * Reads no faster than `bytesPerSecond` (measured from the first byte): pauses the socket whenever it
 * is ahead. With a small receive buffer the sender's acknowledgements then follow this rate.
 */
export function throttle(raw: RawConnection, bytesPerSecond: number): void {
  let startedAt: number | undefined;
  let total = 0;
  raw.socket.on('data', (chunk: Buffer) => {
    startedAt ??= performance.now();
    total += chunk.length;
    const aheadMs = (total * 1000) / bytesPerSecond - (performance.now() - startedAt);
    if (aheadMs > 1) {
      raw.socket.pause();
      setTimeout(() => raw.socket.resume(), aheadMs);
    }
  });
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export { seededRandom } from '@sammy/test-support';

/**
 * Counts the body bytes a response writes, when the first one left, and where each write ends in
 * the connection's byte stream, so that an acknowledged stream offset (TCP_INFO bytes_acked) can be
 * turned into body bytes that reached the client.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ResponseMeter {
  /** Body bytes written so far. */
  readonly bytes: number;
  /** performance.now() of the first write (head or body); undefined before it. */
  readonly firstByteAt: number | undefined;
  /**
   * Body bytes among the response's first `wireBytes` bytes on the wire (head, framing and body).
   * Exact for a Content-Length body; with chunked framing a lower bound (framing counted as not body).
   */
  bodyBytesWithin(wireBytes: number): number;
}

function byteLength(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}

/**
 * Wraps `res.write`/`res.end` (install it under any other wrapper, such as the userspace pacer, so it
 * sees what really goes to the socket). `wireStart` is the socket's bytesWritten where this response
 * begins: Node writes a connection's responses in order, and the middleware admits one only once the
 * previous one is written.
 */
export function meterResponse(res: ServerResponse, socket: Socket, wireStart: number): ResponseMeter {
  const write = res.write;
  const end = res.end;
  let bytes = 0;
  let firstByteAt: number | undefined;
  // Per write with body bytes: [wire offset (from wireStart) where the write ends, body bytes in it].
  const writes: Array<[number, number]> = [];
  let lastWritten = wireStart;

  const around = <T>(chunk: unknown, encoding: unknown, call: () => T): T => {
    const n = typeof chunk === 'function' ? 0 : byteLength(chunk, encoding);
    firstByteAt ??= performance.now();
    const result = call();
    bytes += n;
    // Node writes the head, the chunk framing and the chunk synchronously (bytesWritten counts
    // what is still buffered): the body bytes are at the end of what this call added, framing aside.
    // A write that did not reach the socket (closed, not yet assigned) adds nothing: entries never overlap.
    const written = socket.bytesWritten;
    if (written !== undefined && written > lastWritten) {
      const inWire = Math.min(n, written - lastWritten);
      if (inWire > 0) writes.push([written - wireStart, inWire]);
      lastWritten = written;
    }
    return result;
  };
  res.write = function meteredWrite(this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    return around(chunk, rest[0], () => (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest));
  } as ServerResponse['write'];
  res.end = function meteredEnd(this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    return around(chunk, rest[0], () => (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest));
  } as ServerResponse['end'];

  return {
    get bytes() {
      return bytes;
    },
    get firstByteAt() {
      return firstByteAt;
    },
    bodyBytesWithin(wireBytes: number): number {
      let body = 0;
      for (const [wireEnd, n] of writes) {
        // The write's body bytes are its last n bytes (chunked framing adds 2 more after them: then
        // this start is 2 bytes late, which undercounts, never overcounts).
        const dataStart = wireEnd - n;
        if (wireBytes <= dataStart) break;
        body += Math.min(n, wireBytes - dataStart);
      }
      return body;
    },
  };
}

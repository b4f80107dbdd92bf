/**
 * Counts the body bytes a response writes and when the first one left, and runs a hook just
 * before the first byte (where a deferred socket option is applied).
 */
import type { ServerResponse } from 'node:http';

export interface ResponseMeter {
  readonly bytes: number;
  /** performance.now() of the first body write; undefined before it. */
  readonly firstByteAt: number | undefined;
}

function byteLength(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}

export function meterResponse(res: ServerResponse, beforeFirstByte?: () => void): ResponseMeter {
  const write = res.write;
  const end = res.end;
  let bytes = 0;
  let firstByteAt: number | undefined;
  const count = (chunk: unknown, encoding: unknown) => {
    const n = typeof chunk === 'function' ? 0 : byteLength(chunk, encoding);
    if (firstByteAt === undefined && n > 0) {
      beforeFirstByte?.();
      firstByteAt = performance.now();
    }
    bytes += n;
  };
  res.write = function meteredWrite(this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    count(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse['write'];
  res.end = function meteredEnd(this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    count(chunk, rest[0]);
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as ServerResponse['end'];
  return {
    get bytes() {
      return bytes;
    },
    get firstByteAt() {
      return firstByteAt;
    },
  };
}

/**
 * The one wrapper of a response's `write`/`end`. Whatever the handler writes passes here: while a hold
 * is set (userspace pacing, the HTTP/2 send gate, the hand-off to the kernel) it waits in the hold
 * first, and as it is handed on to the response it is counted (body bytes, the first byte's time) and
 * shown to `onWritten` (the HTTP/1.1 wire meter). One wrapper installed once, so counting always sees
 * what reaches the socket whatever was set up first, and a later wrapper that kept a reference to it
 * (compression) keeps working once the hold is lifted.
 */
import type { ServerResponse } from 'node:http';
import { HeldBody, type ReleasePolicy } from './held-body.js';

type Call<T> = (...args: unknown[]) => T;

function byteLength(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}

export class ResponseWrites {
  /** Body bytes handed to the response (past any hold). */
  bytes = 0;
  /** performance.now() of the first write (head or body) handed to the response; undefined before it. */
  firstByteAt: number | undefined;
  /** Called after each write handed to the response, with its body bytes. */
  onWritten: ((bodyBytes: number) => void) | undefined;
  readonly #res: ServerResponse;
  readonly #write: Call<boolean>;
  readonly #end: Call<ServerResponse>;
  #held: HeldBody | undefined;

  constructor(res: ServerResponse) {
    this.#res = res;
    this.#write = res.write as Call<boolean>;
    this.#end = res.end as Call<ServerResponse>;
    const writes = this;
    res.write = function sammyWrite(this: ServerResponse, ...args: unknown[]) {
      const held = writes.#held;
      return held?.holding ? held.write(args[0], args[1], args[2]) : writes.#handOn(writes.#write, this, args);
    } as ServerResponse['write'];
    res.end = function sammyEnd(this: ServerResponse, ...args: unknown[]) {
      const held = writes.#held;
      return held?.holding ? held.end(args[0], args[1], args[2]) : writes.#handOn(writes.#end, this, args);
    } as ServerResponse['end'];
  }

  /** Holds the body from now on and lets it go as `policy` allows; once per response (PacedResponse.start). */
  hold(policy: ReleasePolicy): void {
    if (this.#held) throw new Error('a response body is held once');
    const res = this.#res;
    this.#held = new HeldBody(res, policy, {
      write: (data, callback) => this.#handOn(this.#write, res, [data, callback]),
      end: (callback) => void this.#handOn(this.#end, res, [callback]),
    });
  }

  /** Body bytes waiting in the hold. */
  get heldBytes(): number {
    return this.#held?.queuedBytes ?? 0;
  }

  /** The hold's policy may allow more now (the pace was raised or lifted): try at once. */
  wake(): void {
    this.#held?.wake();
  }

  /** Stops holding and drops what is held (the response is done with). */
  stopHolding(): void {
    this.#held?.stop();
  }

  #handOn<T>(call: Call<T>, res: ServerResponse, args: unknown[]): T {
    const [chunk, encoding] = args;
    const n = typeof chunk === 'function' ? 0 : byteLength(chunk, encoding);
    this.firstByteAt ??= performance.now();
    this.bytes += n;
    const result = call.apply(res, args);
    this.onWritten?.(n);
    return result;
  }
}

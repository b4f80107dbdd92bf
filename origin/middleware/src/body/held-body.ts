/**
 * A response body held in userspace and let through as a release policy allows: the one mechanism
 * under userspace pacing (a token bucket: userspace-pacer.ts), the HTTP/2 send gate (the kernel's queue
 * kept short: http2/connection.ts) and the hand-off of a new connection's first segments to the kernel.
 *
 * The response's write wrapper (writes.ts) routes writes here while the hold lasts: bytes go
 * into a queue and leave as the policy allows. `write` returns false while bytes are queued and `drain`
 * is emitted once the queue empties, so a piped source (express.static) waits instead of filling memory.
 * A slow client is respected too: nothing more is let through until the response's own stream drains.
 * When the response closes, whatever is still queued is dropped (a reset stream, a client gone): it
 * was never handed to the socket.
 */
import type { ServerResponse } from 'node:http';

export type WriteCallback = (err?: Error | null) => void;
type Chunk = { data: Buffer; callback?: WriteCallback };

/** When held bytes may go. */
export interface ReleasePolicy {
  /** Bytes that may go now (Infinity: any). */
  allowance(): number;
  /** The least worth one write (fewer wake-ups); a smaller chunk goes whole once it fits. */
  readonly minimumBytes: number;
  /** `n` bytes went (a policy that counts what it let through). */
  took?(n: number): void;
  /** Milliseconds until `need` bytes may go, `allowed` being the allowance just given. */
  waitMs(need: number, allowed: number): number;
  /** Checked after each write: true hands everything queued to the response and stops holding. */
  done?(): boolean;
}

/** Where released bytes go: the response under the hold. */
export interface BodySink {
  write(data: Buffer, callback?: WriteCallback): boolean;
  end(callback?: () => void): void;
}

function toBuffer(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError('response chunk must be a string, Buffer or Uint8Array');
}

/** Splits Node's overloaded `(chunk, encoding?, callback?)` arguments. */
function splitArgs(encodingOrCallback: unknown, callback: unknown): { encoding: unknown; callback?: WriteCallback } {
  if (typeof encodingOrCallback === 'function') return { encoding: undefined, callback: encodingOrCallback as WriteCallback };
  return { encoding: encodingOrCallback, callback: typeof callback === 'function' ? (callback as WriteCallback) : undefined };
}

export class HeldBody {
  readonly #res: ServerResponse;
  readonly #policy: ReleasePolicy;
  readonly #sink: BodySink;
  readonly #queue: Chunk[] = [];
  #queuedBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #waitingForSocket = false;
  #ending: { callback?: () => void } | undefined;
  #stopped = false;
  readonly #onSocketDrain = () => {
    if (!this.#waitingForSocket) return;
    this.#waitingForSocket = false;
    this.#pump();
  };
  readonly #onClose = () => this.stop();

  constructor(res: ServerResponse, policy: ReleasePolicy, sink: BodySink) {
    this.#res = res;
    this.#policy = policy;
    this.#sink = sink;
    res.on('drain', this.#onSocketDrain);
    res.once('close', this.#onClose);
  }

  /** Body bytes held here, not yet handed to the response. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Whether writes still wait here (false once released or stopped: they go straight through). */
  get holding(): boolean {
    return !this.#stopped;
  }

  /** `res.write` while holding. */
  write(chunk: unknown, encodingOrCallback?: unknown, callback?: unknown): boolean {
    const args = splitArgs(encodingOrCallback, callback);
    this.#enqueue(chunk, args.encoding, args.callback);
    return this.#queuedBytes === 0;
  }

  /** `res.end` while holding: the end waits for the queue. */
  end(chunk?: unknown, encodingOrCallback?: unknown, callback?: unknown): ServerResponse {
    let cb: (() => void) | undefined;
    if (typeof chunk === 'function') cb = chunk as () => void;
    else {
      const args = splitArgs(encodingOrCallback, callback);
      cb = args.callback as (() => void) | undefined;
      if (chunk !== undefined && chunk !== null) this.#enqueue(chunk, args.encoding);
    }
    this.#ending = { callback: cb };
    if (!this.#timer && !this.#waitingForSocket) this.#pump();
    return this.#res;
  }

  /** Stops holding and drops anything queued (the client went away). Idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#cleanup();
    const dropped = this.#queue.splice(0);
    this.#queuedBytes = 0;
    this.#ending = undefined;
    const err = new Error('response closed before its held body was sent');
    for (const c of dropped) if (c.callback) process.nextTick(c.callback, err);
  }

  /** The policy may allow more now than when it was last asked (its limit was lifted): try at once. */
  wake(): void {
    if (!this.#stopped && !this.#waitingForSocket && (this.#queue.length > 0 || this.#ending)) this.#pump();
  }

  #enqueue(chunk: unknown, encoding: unknown, callback?: WriteCallback): void {
    const data = toBuffer(chunk, encoding);
    if (data.length === 0) {
      if (callback) process.nextTick(callback);
      return;
    }
    this.#queue.push({ data, callback });
    this.#queuedBytes += data.length;
    if (!this.#timer && !this.#waitingForSocket) this.#pump();
  }

  #pump(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#stopped || this.#waitingForSocket) return;
    // Read once: nothing in this synchronous pass changes the policy's limit.
    const minimumBytes = this.#policy.minimumBytes;
    let allowed = 0;
    while (this.#queue.length > 0) {
      const head = this.#queue[0]!;
      allowed = this.#policy.allowance();
      const n = Math.min(head.data.length, Math.floor(allowed));
      if (!(n >= Math.min(head.data.length, minimumBytes))) break;
      const whole = n === head.data.length;
      const slice = whole ? head.data : head.data.subarray(0, n);
      if (whole) this.#queue.shift();
      else head.data = head.data.subarray(n);
      this.#policy.took?.(n);
      this.#queuedBytes -= n;
      const flushed = this.#sink.write(slice, whole ? head.callback : undefined);
      if (this.#policy.done?.()) return this.#release();
      if (!flushed) {
        this.#waitingForSocket = true;
        return;
      }
    }
    if (this.#queue.length > 0) {
      this.#timer = setTimeout(
        () => this.#pump(),
        Math.max(1, this.#policy.waitMs(Math.min(this.#queue[0]!.data.length, minimumBytes), allowed)),
      );
      return;
    }
    if (this.#ending) {
      const { callback } = this.#ending;
      this.#ending = undefined;
      this.#stopped = true;
      this.#cleanup();
      this.#sink.end(callback);
    } else {
      this.#res.emit('drain');
    }
  }

  /** Hands everything queued to the response and stops holding. */
  #release(): void {
    this.#stopped = true;
    const rest = this.#queue.splice(0);
    this.#queuedBytes = 0;
    const finishing = this.#ending;
    this.#ending = undefined;
    this.#cleanup();
    let flushed = true;
    for (const c of rest) flushed = this.#sink.write(c.data, c.callback);
    if (finishing) this.#sink.end(finishing.callback);
    else if (flushed) this.#res.emit('drain');
  }

  #cleanup(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#res.off('drain', this.#onSocketDrain);
    this.#res.off('close', this.#onClose);
  }
}

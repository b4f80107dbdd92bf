/**
 * A response whose body is held in userspace and let through as a release policy allows: the one
 * mechanism under userspace pacing (a token bucket: userspace-pacer.ts) and under the HTTP/2 send
 * gate (the kernel's queue kept short: shared-connection.ts).
 *
 * `res.write`/`res.end` are wrapped: bytes go into a queue and leave as the policy allows. `write`
 * returns false while bytes are queued and `drain` is emitted once the queue empties, so a piped
 * source (express.static) waits instead of filling memory. A slow client is respected too: nothing
 * more is let through until the response's own stream drains. When the response closes, whatever is
 * still queued is dropped (a reset stream, a client gone): it was never handed to the socket.
 */
import type { ServerResponse } from 'node:http';

type WriteCallback = (err?: Error | null) => void;
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

export interface HeldResponse {
  /** Body bytes held here, not yet handed to the response. */
  readonly queuedBytes: number;
  /** Stops holding and drops anything queued (the client went away). Idempotent. */
  stop(): void;
  /** The policy may allow more now than when it was last asked (its limit was lifted): try at once. */
  wake(): void;
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

export function holdResponse(res: ServerResponse, policy: ReleasePolicy): HeldResponse {
  const write = res.write.bind(res) as (chunk: Buffer, callback?: WriteCallback) => boolean;
  const end = res.end.bind(res) as (callback?: () => void) => ServerResponse;

  const queue: Chunk[] = [];
  let queuedBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let waitingForSocket = false;
  let ending: { callback?: () => void } | undefined;
  let stopped = false;

  const pump = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (stopped || waitingForSocket) return;
    // Read once: nothing in this synchronous pass changes the policy's limit.
    const minimumBytes = policy.minimumBytes;
    let allowed = 0;
    while (queue.length > 0) {
      const head = queue[0]!;
      allowed = policy.allowance();
      const n = Math.min(head.data.length, Math.floor(allowed));
      if (!(n >= Math.min(head.data.length, minimumBytes))) break;
      const whole = n === head.data.length;
      const slice = whole ? head.data : head.data.subarray(0, n);
      if (whole) queue.shift();
      else head.data = head.data.subarray(n);
      policy.took?.(n);
      queuedBytes -= n;
      const flushed = write(slice, whole ? head.callback : undefined);
      if (policy.done?.()) return release();
      if (!flushed) {
        waitingForSocket = true;
        return;
      }
    }
    if (queue.length > 0) {
      timer = setTimeout(pump, Math.max(1, policy.waitMs(Math.min(queue[0]!.data.length, minimumBytes), allowed)));
      return;
    }
    if (ending) {
      const { callback } = ending;
      ending = undefined;
      cleanup();
      end(callback);
    } else {
      res.emit('drain');
    }
  };

  const onSocketDrain = () => {
    if (!waitingForSocket) return;
    waitingForSocket = false;
    pump();
  };

  const enqueue = (chunk: unknown, encoding: unknown, callback?: WriteCallback) => {
    const data = toBuffer(chunk, encoding);
    if (data.length === 0) {
      if (callback) process.nextTick(callback);
      return;
    }
    queue.push({ data, callback });
    queuedBytes += data.length;
    if (!timer && !waitingForSocket) pump();
  };

  const cleanup = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    res.off('drain', onSocketDrain);
    res.off('close', stop);
    res.write = write as ServerResponse['write'];
    res.end = end as ServerResponse['end'];
  };

  /** Hands everything queued to the response and stops wrapping it. */
  function release() {
    stopped = true;
    const rest = queue.splice(0);
    queuedBytes = 0;
    const finishing = ending;
    ending = undefined;
    cleanup();
    let flushed = true;
    for (const c of rest) flushed = write(c.data, c.callback);
    if (finishing) end(finishing.callback);
    else if (flushed) res.emit('drain');
  }

  function stop() {
    if (stopped) return;
    stopped = true;
    cleanup();
    const dropped = queue.splice(0);
    queuedBytes = 0;
    ending = undefined;
    const err = new Error('response closed before its held body was sent');
    for (const c of dropped) if (c.callback) process.nextTick(c.callback, err);
  }

  res.on('drain', onSocketDrain);
  res.once('close', stop);

  res.write = function heldWrite(chunk: unknown, encodingOrCallback?: unknown, callback?: unknown): boolean {
    if (stopped) return write(toBuffer(chunk, undefined));
    const args = splitArgs(encodingOrCallback, callback);
    enqueue(chunk, args.encoding, args.callback);
    return queuedBytes === 0;
  } as ServerResponse['write'];

  res.end = function heldEnd(chunk?: unknown, encodingOrCallback?: unknown, callback?: unknown): ServerResponse {
    if (stopped) return end();
    let cb: (() => void) | undefined;
    if (typeof chunk === 'function') cb = chunk as () => void;
    else {
      const args = splitArgs(encodingOrCallback, callback);
      cb = args.callback as (() => void) | undefined;
      if (chunk !== undefined && chunk !== null) enqueue(chunk, args.encoding);
    }
    ending = { callback: cb };
    if (!timer && !waitingForSocket) pump();
    return res;
  } as ServerResponse['end'];

  return {
    get queuedBytes() {
      return queuedBytes;
    },
    stop,
    wake: () => {
      if (!stopped && !waitingForSocket && (queue.length > 0 || ending)) pump();
    },
  };
}

/**
 * Userspace pacing: a token bucket between the response stream and the socket, for where the
 * kernel cannot pace (macOS, Windows, TLS sockets, a failing setsockopt) or when forced.
 *
 * `res.write`/`res.end` are wrapped: bytes go into a queue and leave at the pace rate in bursts
 * of at most `burstMs` worth. `write` returns false while bytes are queued and `drain` is emitted
 * once the queue empties, so a piped source (express.static) waits instead of filling memory.
 * A slow client is respected too: nothing more is sent until the socket drains.
 */
import type { ServerResponse } from 'node:http';

/** Largest burst, in milliseconds of data at the pace rate (the kernel sends ~1 ms per burst). */
export const DEFAULT_BURST_MS = 20;
/** Smallest burst, bytes: keeps timer wake-ups few at low rates. */
const MIN_BURST_BYTES = 16 * 1024;

type WriteCallback = (err?: Error | null) => void;
type Chunk = { data: Buffer; callback?: WriteCallback };

export interface UserspacePacer {
  /** Stops pacing and drops anything queued (the client went away). Idempotent. */
  stop(): void;
}

/**
 * Pacing only until the kernel takes over: Linux does not pace a connection's first 10 segments
 * (tcp_update_skb_after_send: `data_segs_out >= 10`), so on a new kernel-paced connection those go
 * out one segment per burst from here, and once `done()` the rest is handed to the socket at once.
 */
export interface HandOff {
  /** Burst size, bytes (one segment: the socket's MSS). */
  burstBytes: number;
  /** Checked after each burst; true once the kernel paces the connection. */
  done(): boolean;
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

export function paceResponseInUserspace(
  res: ServerResponse,
  bytesPerSecond: number,
  burstMs: number = DEFAULT_BURST_MS,
  handOff?: HandOff,
): UserspacePacer {
  const burstBytes = handOff ? Math.max(1, handOff.burstBytes) : Math.max(MIN_BURST_BYTES, Math.round((bytesPerSecond * burstMs) / 1000));
  // Wait for half a bucket between sends: fewer wake-ups, and a late timer still has room before the bucket overflows.
  const sendThreshold = burstBytes / 2;
  const write = res.write.bind(res) as (chunk: Buffer, callback?: WriteCallback) => boolean;
  const end = res.end.bind(res) as (callback?: () => void) => ServerResponse;

  const queue: Chunk[] = [];
  let queuedBytes = 0;
  let tokens = burstBytes;
  let refilledAt = performance.now();
  let timer: NodeJS.Timeout | undefined;
  let waitingForSocket = false;
  let ending: { callback?: () => void } | undefined;
  let stopped = false;

  const refill = () => {
    const now = performance.now();
    tokens = Math.min(burstBytes, tokens + ((now - refilledAt) * bytesPerSecond) / 1000);
    refilledAt = now;
  };

  const pump = () => {
    timer = undefined;
    if (stopped || waitingForSocket) return;
    refill();
    while (queue.length > 0) {
      const head = queue[0]!;
      const n = Math.min(head.data.length, Math.floor(tokens));
      if (n < Math.min(head.data.length, sendThreshold)) break;
      const whole = n === head.data.length;
      const slice = whole ? head.data : head.data.subarray(0, n);
      if (whole) queue.shift();
      else head.data = head.data.subarray(n);
      tokens -= n;
      queuedBytes -= n;
      const flushed = write(slice, whole ? head.callback : undefined);
      if (handOff?.done()) return release();
      if (!flushed) {
        waitingForSocket = true;
        return;
      }
    }
    if (queue.length > 0) {
      const need = Math.min(queue[0]!.data.length, sendThreshold) - tokens;
      timer = setTimeout(pump, Math.max(1, (need * 1000) / bytesPerSecond));
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

  /** Hands everything queued to the socket and stops wrapping the response. */
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
    const err = new Error('response closed before its paced body was sent');
    for (const c of dropped) if (c.callback) process.nextTick(c.callback, err);
  }

  res.on('drain', onSocketDrain);
  res.once('close', stop);

  res.write = function pacedWrite(chunk: unknown, encodingOrCallback?: unknown, callback?: unknown): boolean {
    if (stopped) return write(toBuffer(chunk, undefined));
    const args = splitArgs(encodingOrCallback, callback);
    enqueue(chunk, args.encoding, args.callback);
    return queuedBytes === 0;
  } as ServerResponse['write'];

  res.end = function pacedEnd(chunk?: unknown, encodingOrCallback?: unknown, callback?: unknown): ServerResponse {
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

  return { stop };
}

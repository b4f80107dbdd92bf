/**
 * The slow-reader policy, one for HTTP/1.1 and HTTP/2: while bytes wait for a client, it must
 * acknowledge at least `minReadKbps` worth of them in every `progressTimeoutMs`, or its connection is
 * ended and its responses recorded `stalled`. Progress is what the client's TCP acknowledged
 * (TCP_INFO bytes_acked), on either version: not Node's buffers, whose granularity (64 KB chunks on
 * an HTTP/2 stream) hid small steady progress, nor any single acknowledged byte, which let a client
 * reading 6.5 kbps hold a response (and its fd and buffers) for as long as it liked.
 */
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';

export class ReadProgress {
  /** Bytes the client must acknowledge per window. */
  readonly minBytes: number;
  readonly windowMs: number;
  /** When the current window started, and the acknowledged count then; undefined while nothing waits. */
  #markAt: number | undefined;
  #markBytes = 0;
  /** When the connection last asked; it asks at least every eighth of the window (ack-tracker.ts). */
  #checkedAt: number | undefined;

  constructor(minReadKbps: number, windowMs: number) {
    // At least one byte: a rate of 0 still cuts a client that acknowledges nothing.
    this.minBytes = Math.max(1, (kbpsToBytesPerSecond(minReadKbps) * windowMs) / 1000);
    this.windowMs = windowMs;
  }

  /**
   * True once the client, with bytes waiting for it all along, has acknowledged fewer than `minBytes`
   * in a window. `progressBytes` only grows (acknowledged bytes; without TCP_INFO, bytes that left Node).
   */
  stalled(now: number, progressBytes: number, waiting: boolean): boolean {
    // Asked after half a window or more: this server's event loop was held (a loaded host, a long GC),
    // and the client cannot be judged by a time in which the server itself neither sent nor read.
    const serverHeld = this.#checkedAt !== undefined && now - this.#checkedAt > this.windowMs / 2;
    this.#checkedAt = now;
    if (!waiting) {
      this.#markAt = undefined;
      return false;
    }
    // The clock starts when bytes are first seen waiting (late rather than early: never cut too soon).
    if (this.#markAt === undefined || serverHeld || progressBytes - this.#markBytes >= this.minBytes) {
      this.#markAt = now;
      this.#markBytes = progressBytes;
      return false;
    }
    return now - this.#markAt >= this.windowMs;
  }

  /** Bytes acknowledged in the current window, for the log line. */
  acknowledgedSinceMark(progressBytes: number): number {
    return progressBytes - this.#markBytes;
  }
}

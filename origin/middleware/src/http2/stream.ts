/**
 * One response on an HTTP/2 session (connection.ts): what the session needs to know of its
 * stream to follow it — bytes still in Node for it, whether they move — and the stream's own hazards:
 * a reset it must not leak a file through, a stall it must be reset for.
 */
import { constants as h2 } from 'node:http2';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { DeliveryEndReason } from 'sammy-pacing-protocol';
import type { PacedResponse } from '../engine/paced-response.js';
import type { TcpInfo } from '../socket/tcp-info.js';

/**
 * How long a stream's buffered bytes must sit unmoved while the connection has nothing else to send
 * before the send gate counts them as held by the client's flow control. With the kernel's queue
 * empty, Node hands a stream's bytes to the socket within one turn of the event loop.
 */
const FLOW_BLOCKED_MS = 20;

/** What the compatibility API's response exposes of its stream. */
interface StreamResponse extends ServerResponse {
  stream?: { bufferSize?: number; rstCode?: number; destroyed?: boolean; close?(code: number): void };
}

export class StreamDelivery {
  readonly response: PacedResponse;
  readonly res: StreamResponse;
  /** Body bytes written (`bytes`) and its own buffer (`buffered`) when the connection's queues were last read: the lower bound is taken against that read. */
  bytesAtRead = 0;
  bufferedAtRead = Infinity;
  finished = false;
  /** Kernel stream offset after this response's last byte, once known. */
  endOffset: number | undefined;
  /** Reset by the progress timeout (its bytes did not move for that long). */
  stalled = false;
  /** `bytes - buffered` when its waiting bytes last moved, and when. */
  #leftAtMove = 0;
  #movedAt = performance.now();
  /** Bytes that had left its buffer when the send gate last looked, and since when they have not moved with the kernel idle. */
  #leftSeen = -1;
  #unmovedSince: number | undefined;
  #flowBlocked = false;

  constructor(response: PacedResponse) {
    this.response = response;
    this.res = response.res as StreamResponse;
    this.#closePipedSources();
  }

  /**
   * serve-static (send) pipes a file into the response and closes it through on-finished, which hears
   * nothing from an HTTP/2 stream that is reset (it waits for the session's socket instead): a stream
   * reset before or while its file is sent kept the file open for good. Here a source piped into the
   * response is destroyed when the response closes, or at once if its stream is already gone.
   */
  #closePipedSources(): void {
    const sources = new Set<Readable>();
    this.res.on('pipe', (source: Readable) => {
      if (this.res.stream?.destroyed) source.destroy();
      else sources.add(source);
    });
    this.res.on('unpipe', (source: Readable) => sources.delete(source));
    this.res.once('close', () => {
      for (const source of sources) source.destroy();
      sources.clear();
    });
  }

  /** Body bytes the handler wrote (handed to Node). */
  get bytes(): number {
    return this.response.writes.bytes;
  }

  /** Bytes still in Node for this stream (flow control, or not yet framed). */
  get buffered(): number {
    return this.res.stream?.bufferSize ?? 0;
  }

  /** Bytes waiting in Node to leave for this stream: in its HTTP/2 buffer, or held at the gate or pacer. */
  get waitingBytes(): number {
    return this.buffered + this.response.writes.heldBytes;
  }

  /** How long, ms, bytes have waited for this stream without any of them moving on (0 while none wait). */
  unmovedMs(now: number): number {
    const left = this.bytes - this.buffered;
    if (left !== this.#leftAtMove || this.waitingBytes === 0) {
      this.#leftAtMove = left;
      this.#movedAt = now;
    }
    return now - this.#movedAt;
  }

  /** Resets its stream (RST_STREAM CANCEL): its bytes stopped moving for the progress timeout. */
  resetStalled(): void {
    this.stalled = true;
    this.res.stream?.close?.(h2.NGHTTP2_CANCEL);
  }

  /**
   * Its buffered bytes that the send gate counts: all of them, unless the client's HTTP/2 flow control
   * holds them (it stopped reading this stream: a media element whose cache is full, a paused reader).
   * Held means they have not moved while the connection's kernel queue was empty (`kernelIdle`), when
   * nothing but the stream's window keeps Node from sending them; cleared as soon as any leaves.
   */
  gatedBuffered(kernelIdle: boolean, now: number): number {
    const buffered = this.buffered;
    const left = this.bytes - buffered;
    if (buffered === 0 || left !== this.#leftSeen) {
      this.#leftSeen = left;
      this.#unmovedSince = undefined;
      this.#flowBlocked = false;
    } else if (!this.#flowBlocked && kernelIdle) {
      this.#unmovedSince ??= now;
      this.#flowBlocked = now - this.#unmovedSince >= FLOW_BLOCKED_MS;
    }
    return this.#flowBlocked ? 0 : buffered;
  }

  end(reason: DeliveryEndReason, bytes: number, bytesExact: boolean, info: TcpInfo | undefined, endAt?: number): void {
    this.response.end(reason, bytes, bytesExact, info, endAt);
  }
}

/**
 * An HTTP/2 session's deliveries: many responses at once on one TCP connection, whose socket pace
 * covers them all. The pace follows sammy-pacing-protocol's shared-connection rules
 * (decideConnectionPace): while any response on the session is still being sent or awaits its
 * acknowledgement, the pace only rises (until a media segment without rtp unpaces it: the player's
 * initial phase after a seek or a stall); on an idle session each request's own rtp (or none) decides.
 * While the session is kernel-paced its bodies wait at the send gate (`hold`, connection.ts
 * sendGateBytes), so that the kernel never holds more than a tenth of a second of them: Node's HTTP/2
 * reads nothing from the client while a write to a full socket is unfinished.
 *
 * Delivery is followed in the kernel's byte count (TCP_INFO bytes_acked + SIOCOUTQ), the only one that
 * holds under TLS and HTTP/2 framing: a finished response's end offset is taken once nothing of the
 * session is left in Node (TLS and the session's queue empty, the stream's buffer empty), and the
 * response is delivered when the client has acknowledged that offset. That end offset can only lie at
 * or after the response's last byte, so `delivered` is never early. An aborted response's `bytes` is a
 * lower bound: what it wrote, less everything the connection still held unacknowledged.
 */
import type { Socket } from 'node:net';
import { constants as h2, type Http2Session } from 'node:http2';
import type { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import type { DeliveryEndReason } from 'sammy-pacing-protocol';
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';
import { ConnectionSocket, sendGateBytes } from './connection.js';
import { holdResponse, type HeldResponse } from './held-response.js';
import { trackedFields, type TrackedFields } from './delivery-tracker.js';
import type { DeliveryLimits } from './delivery-connection.js';
import type { SammyLogger } from './logger.js';
import { lastAckAt, type TcpInfo } from './tcp-info.js';

const MIN_POLL_MS = 2;
const MAX_POLL_MS = 250;
const MAX_PROGRESS_CHECK_MS = 5000;
const PROGRESS_CHECKS_PER_TIMEOUT = 8;
/**
 * How long a stream's buffered bytes must sit unmoved while the connection has nothing else to send
 * before the send gate counts them as held by the client's flow control. With the kernel's queue
 * empty, Node hands a stream's bytes to the socket within one turn of the event loop.
 */
const FLOW_BLOCKED_MS = 20;
/**
 * Streams the client may reset at once (a page closed with every request in flight: at most the
 * session's concurrent streams, 100 on the reference server), and per second after that. Past it the
 * session is closed with GOAWAY(ENHANCE_YOUR_CALM): each reset stream costs the server a request's
 * work (a stat, an open file), so an unbounded rate of them is the HTTP/2 "rapid reset" attack.
 */
const CLIENT_RESET_BURST = 200;
const CLIENT_RESETS_PER_SECOND = 50;

/** What the compatibility API's response exposes of its stream. */
interface StreamResponse extends ServerResponse {
  stream?: { bufferSize?: number; rstCode?: number; destroyed?: boolean; close?(code: number): void };
}

/** One response on the session. */
export class StreamDelivery {
  readonly res: StreamResponse;
  readonly requestAt = performance.now();
  readonly #wallOffset = Date.now() - this.requestAt;
  readonly #onRecord: (fields: TrackedFields) => void;
  /** Body bytes the handler wrote, and when the first left. */
  bytes = 0;
  /** `bytes` when the connection's queues were last read: the lower bound is taken against that read. */
  bytesAtRead = 0;
  firstByteAt: number | undefined;
  /** The stream's own buffer (`buffered`) at the last read. */
  bufferedAtRead = Infinity;
  retransmitsBefore: number | undefined;
  finished = false;
  /** Kernel stream offset after this response's last byte, once known. */
  endOffset: number | undefined;
  recorded = false;
  /** Its body, while it waits at the send gate (SharedConnection.hold) or at its userspace pacer. */
  held: HeldResponse | undefined;
  /** Reset by the progress timeout (its bytes did not move for that long). */
  stalled = false;
  /** `bytes - buffered` when its waiting bytes last moved, and when. */
  #leftAtMove = 0;
  #movedAt = performance.now();
  /** Bytes that had left its buffer when the send gate last looked, and since when they have not moved with the kernel idle. */
  #leftSeen = -1;
  #unmovedSince: number | undefined;
  #flowBlocked = false;

  constructor(res: ServerResponse, onRecord: (fields: TrackedFields) => void) {
    this.res = res as StreamResponse;
    this.#onRecord = onRecord;
    const write = res.write;
    const end = res.end;
    const count = (chunk: unknown, encoding: unknown) => {
      this.firstByteAt ??= performance.now();
      if (typeof chunk === 'string') this.bytes += Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      else if (chunk instanceof Uint8Array) this.bytes += chunk.byteLength;
    };
    res.write = function countedWrite(this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      count(chunk, rest[0]);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as ServerResponse['write'];
    res.end = function countedEnd(this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (typeof chunk !== 'function') count(chunk, rest[0]);
      return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as ServerResponse['end'];
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

  /** Bytes waiting in Node to leave for this stream: in its HTTP/2 buffer, or held at the gate or pacer. */
  get waitingBytes(): number {
    return this.buffered + (this.held?.queuedBytes ?? 0);
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

  /** Bytes still in Node for this stream (flow control, or not yet framed). */
  get buffered(): number {
    return this.res.stream?.bufferSize ?? 0;
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

  end(reason: DeliveryEndReason, bytes: number, bytesExact: boolean, info: TcpInfo | undefined, endAt: number = performance.now()): void {
    if (this.recorded) return;
    this.recorded = true;
    this.#onRecord(
      trackedFields({
        status: this.res.statusCode,
        bytes,
        bytesExact,
        bytesWritten: this.bytes,
        startAt: this.firstByteAt ?? this.requestAt,
        endAt: Math.max(endAt, this.firstByteAt ?? this.requestAt),
        wallOffset: this.#wallOffset,
        retransmitsBefore: this.retransmitsBefore,
        info,
        reason,
      }),
    );
  }
}

export class SharedConnection {
  readonly conn: ConnectionSocket;
  readonly #session: Http2Session;
  readonly #socket: Socket;
  readonly #limits: DeliveryLimits;
  readonly #log: SammyLogger;
  readonly #onIdle: (c: SharedConnection) => void;
  readonly #streams = new Set<StreamDelivery>();
  /** The pace on the connection, kbps (the kernel's, or the userspace pacers'); undefined when unpaced. */
  paceKbps: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #acked: number | undefined;
  #outq = 0;
  /** Unacknowledged bytes in the kernel and in Node's TLS buffer at the last read. */
  #heldAtRead = Infinity;
  #info: TcpInfo | undefined;
  /** performance.now() when #info was read. */
  #infoAt = 0;
  #lastProgressAt = performance.now();
  #closed = false;
  #stalled = false;
  #resetTokens = CLIENT_RESET_BURST;
  #resetsCountedAt = performance.now();

  constructor(session: Http2Session, socket: Socket, limits: DeliveryLimits, log: SammyLogger, onIdle: (c: SharedConnection) => void) {
    this.#session = session;
    this.#socket = socket;
    this.conn = new ConnectionSocket(socket);
    this.#limits = limits;
    this.#log = log;
    this.#onIdle = onIdle;
    // The fd is gone once the socket closes: read the last acknowledgement while it is still open.
    // The client's FIN (or reset) arrives first, acknowledging all it got: a response it got whole
    // just before it went is delivered, not cut off (the last poll may be a while back).
    for (const event of ['end', 'error'] as const) socket.prependListener(event, () => this.#poll());
    session.once('close', () => this.#close());
    socket.once('close', () => this.#close());
  }

  /**
   * This middleware's responses on the session with bytes left to send: being written, still in Node,
   * or finished but with their last byte unsent by the kernel; more than none means the session is busy.
   * The pace applies to bytes as they leave, so a response whose bytes have all left needs it no more,
   * acknowledged or not. Another stream on the session (an event stream served before the middleware)
   * never counts: it must not keep an old pace alive.
   */
  get streamsSending(): number {
    if (this.#closed || this.#streams.size === 0) return 0;
    let sending = 0;
    let sentOffset: number | undefined;
    for (const d of this.#streams) {
      if (!d.finished || d.buffered > 0 || d.endOffset === undefined) {
        sending++;
        continue;
      }
      if (sentOffset === undefined) {
        try {
          const info = this.conn.tcpInfo();
          const outq = this.conn.sendQueueBytes();
          // Without TCP_INFO nothing says the kernel has sent it: count it.
          sentOffset = info?.bytesAcked === undefined || outq === undefined ? -1 : Number(info.bytesAcked) + outq - (info.notsentBytes ?? 0);
        } catch {
          sentOffset = Infinity;
        }
      }
      if (d.endOffset > sentOffset || sentOffset < 0) sending++;
    }
    return sending;
  }

  /**
   * Bytes of the session waiting in Node's TLS socket. The session's socket is node:http2's proxy, which
   * throws on any access once the session has let go of it: never touched after close, and guarded.
   */
  #socketBuffered(): number {
    if (this.#closed) return 0;
    try {
      return this.#socket.writableLength;
    } catch {
      return 0;
    }
  }


  add(delivery: StreamDelivery): void {
    if (this.#closed) {
      delivery.end('closed', 0, true, undefined);
      return;
    }
    this.#streams.add(delivery);
    delivery.res.once('finish', () => {
      // node:http2's compatibility API emits `finish` also when the stream closes under a response
      // that never ended (a reset, the session destroyed): that one is not finished.
      if (!delivery.res.writableEnded) return;
      delivery.finished = true;
      this.#poll();
    });
    delivery.res.once('close', () => {
      // The stream closed first (RST_STREAM, session gone): whatever the connection still holds may
      // be this stream's, so count only what it wrote less all of that.
      // Closed before its end was written, or reset (RST_STREAM: its queued data is dropped, even after
      // `finish`). The reset stream's buffer is already gone: the bound comes from the last consistent read.
      const reset = (delivery.res.stream?.rstCode ?? 0) !== 0;
      if (reset && !delivery.stalled) this.#countClientReset();
      if (!delivery.finished || reset) this.#endUndelivered(delivery, delivery.stalled || this.#stalled ? 'stalled' : 'closed');
      this.#poll();
    });
    this.#poll();
  }

  /** A token bucket of client resets (CLIENT_RESET_BURST, CLIENT_RESETS_PER_SECOND); empty closes the session. */
  #countClientReset(): void {
    const now = performance.now();
    this.#resetTokens = Math.min(CLIENT_RESET_BURST, this.#resetTokens + ((now - this.#resetsCountedAt) * CLIENT_RESETS_PER_SECOND) / 1000);
    this.#resetsCountedAt = now;
    if (--this.#resetTokens >= 0 || this.#closed || this.#session.destroyed || this.#session.closed) return;
    this.#log.debug(`sammy: HTTP/2 session reset more than ${CLIENT_RESET_BURST} streams at once: GOAWAY (ENHANCE_YOUR_CALM)`);
    // Closed once Node has read the frames at hand: destroyed from inside them, the session sent no GOAWAY.
    const session = this.#session;
    session.goaway(h2.NGHTTP2_ENHANCE_YOUR_CALM);
    session.close(); // refuses new streams at once; destroyed below
    setImmediate(() => session.destroyed || session.destroy());
  }

  /**
   * Holds a response's body in userspace while the connection is kernel-paced and its unsent bytes
   * (the kernel's, Node's TLS buffer, this middleware's streams) are at the send gate (connection.ts,
   * sendGateBytes); once half of that has left, it tops them up to the gate again.
   */
  hold(delivery: StreamDelivery): void {
    const gateBytes = () => {
      const paceKbps = this.#closed ? undefined : this.conn.state.kernelPaceKbps;
      return paceKbps === undefined ? undefined : sendGateBytes(paceKbps);
    };
    delivery.held = holdResponse(delivery.res, {
      allowance: () => {
        const gate = gateBytes();
        return gate === undefined ? Infinity : gate - this.#unsentBytes();
      },
      get minimumBytes() {
        return (gateBytes() ?? 0) / 2;
      },
      waitMs: (need, allowed) => {
        const paceKbps = this.conn.state.kernelPaceKbps;
        return paceKbps === undefined ? 0 : Math.max(MIN_POLL_MS, ((need - allowed) * 1000) / kbpsToBytesPerSecond(paceKbps));
      },
    });
  }

  /** The pace changed (raised, or lifted): held bodies may go now. */
  paceChanged(): void {
    for (const d of this.#streams) d.held?.wake();
  }

  /**
   * Bytes of the connection not yet sent: in the kernel (SIOCOUTQNSD), in Node's TLS buffer and in this
   * middleware's streams — but not a stream's bytes the client's flow control holds (it stopped reading
   * that stream). Those cannot reach the kernel until it reads again; counted, one unread stream with a
   * gate's worth buffered would hold every other body on the session for as long as it stays unread.
   */
  #unsentBytes(): number {
    let queued = this.#socketBuffered();
    try {
      queued += this.conn.unsentQueueBytes() ?? 0;
    } catch {
      // No ioctl: Node's queues are all that is known.
    }
    const kernelIdle = queued === 0;
    const now = performance.now();
    let unsent = queued;
    for (const d of this.#streams) unsent += d.gatedBuffered(kernelIdle, now);
    return unsent;
  }

  /** Bytes the session holds in Node (TLS socket buffer), or Infinity when its framing queue is not empty. */
  #sessionBuffered(): number {
    // Frames nghttp2 has queued but not yet written (headers, control frames; a stream's data waits in
    // its own buffer, `StreamDelivery.buffered`): while there are any, the end offset would be early.
    const queued = (this.#session as unknown as { state?: { outboundQueueSize?: number } }).state?.outboundQueueSize ?? 0;
    return queued > 0 ? Infinity : this.#socketBuffered();
  }

  #read(): void {
    if (this.#closed) return;
    try {
      const info = this.conn.tcpInfo();
      const outq = this.conn.sendQueueBytes();
      if (!info || info.bytesAcked === undefined || outq === undefined) return;
      const acked = Number(info.bytesAcked);
      if (this.#acked === undefined || acked > this.#acked) this.#lastProgressAt = performance.now();
      this.#acked = acked;
      this.#outq = outq;
      this.#info = info;
      this.#infoAt = performance.now();
      this.#heldAtRead = outq + this.#socketBuffered();
      for (const d of this.#streams) {
        d.bytesAtRead = d.bytes;
        d.bufferedAtRead = d.buffered;
      }
    } catch (err) {
      this.#log.debug(`sammy: TCP_INFO on an HTTP/2 session: ${(err as Error).message}`);
    }
  }

  #endUndelivered(d: StreamDelivery, reason: DeliveryEndReason): void {
    this.#streams.delete(d);
    // What the stream had written at the last read, less all the connection held then: a lower bound.
    const bytes = Math.max(0, d.bytesAtRead - this.#heldAtRead - d.bufferedAtRead);
    d.end(reason, bytes, d.bytes === 0, this.#info);
  }

  #poll(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    // Everything was ended when the session closed; its socket must not be touched again.
    if (this.#closed) return;
    this.#read();
    const acked = this.#acked;
    if (acked === undefined) {
      // No TCP_INFO (not Linux): a finished response was handed to the OS in full, receipt unknown.
      for (const d of this.#streams) if (d.finished) this.#streams.delete(d), d.end('sent', d.bytes, false, undefined);
    } else {
      const sessionBuffered = this.#sessionBuffered();
      for (const d of this.#streams) {
        if (!d.finished) continue;
        if (d.endOffset === undefined && sessionBuffered === 0 && d.buffered === 0) d.endOffset = acked + this.#outq;
        if (d.endOffset !== undefined && acked >= d.endOffset) {
          this.#streams.delete(d);
          d.end('delivered', d.bytes, true, this.#info, lastAckAt(this.#info!, this.#infoAt));
        }
      }
    }
    if (this.#streams.size === 0) {
      this.#onIdle(this);
      return;
    }
    const now = performance.now();
    if (this.#outq === 0) this.#lastProgressAt = now;
    if (this.#outq > 0 && now - this.#lastProgressAt >= this.#limits.progressTimeoutMs) {
      this.#stalled = true;
      this.#log.debug(`sammy: HTTP/2 session made no progress for ${Math.round(now - this.#lastProgressAt)} ms: destroyed`);
      // Destroying the session destroys its socket (the proxy refuses socket.destroy()).
      this.#session.destroy();
      return;
    }
    if (this.#resetStalledStreams(now)) return;
    let finished = false;
    let writing = false;
    for (const d of this.#streams) {
      if (d.finished) finished = true;
      else writing = true;
    }
    let ms: number;
    if (finished && acked !== undefined) {
      const rate = this.#rate();
      const left = Math.max(1, this.#outq);
      const min = Math.max(MIN_POLL_MS, (this.#info?.rttUs ?? 0) / 4000);
      ms = Math.min(MAX_POLL_MS, Math.max(min, rate ? (left * 1000) / rate / 2 : MIN_POLL_MS * 2));
    } else if (writing && acked !== undefined) {
      // Bodies are being written: a recent read is what bounds an aborted response's bytes (the
      // session's socket is gone by the time its streams hear of a TCP reset).
      ms = MAX_POLL_MS;
    } else {
      ms = Math.min(MAX_PROGRESS_CHECK_MS, Math.max(MIN_POLL_MS, this.#limits.progressTimeoutMs / PROGRESS_CHECKS_PER_TIMEOUT));
    }
    this.#timer = setTimeout(() => this.#poll(), ms);
  }

  /**
   * The progress timeout per stream: bytes held in Node (the stream's flow-control window shut, or
   * waiting at the gate) are invisible to the kernel's count, and a client that keeps its connection
   * busy (PINGs) while granting no window would otherwise hold them, and their files, for ever. A
   * stream whose waiting bytes have not moved for the timeout is reset; when no stream of the session
   * moves at all, the session is closed. True when the session was.
   */
  #resetStalledStreams(now: number): boolean {
    const timeout = this.#limits.progressTimeoutMs;
    let stalled: StreamDelivery[] | undefined;
    let moving = false;
    for (const d of this.#streams) {
      const unmoved = d.unmovedMs(now);
      if (d.waitingBytes === 0) continue;
      if (unmoved >= timeout) (stalled ??= []).push(d);
      else moving = true;
    }
    if (!stalled) return false;
    if (!moving) {
      this.#stalled = true;
      this.#log.debug(`sammy: no HTTP/2 stream of a session moved for ${timeout} ms: destroyed`);
      this.#session.destroy();
      return true;
    }
    for (const d of stalled) d.resetStalled();
    return false;
  }

  #rate(): number | undefined {
    const paceKbps = this.conn.state.kernelPaceKbps;
    const pace = paceKbps === undefined ? undefined : kbpsToBytesPerSecond(paceKbps);
    const delivery = this.#info?.deliveryRate !== undefined ? Number(this.#info.deliveryRate) : undefined;
    const rates = [pace, delivery].filter((r): r is number => r !== undefined && r > 0 && Number.isFinite(r));
    return rates.length > 0 ? Math.min(...rates) : undefined;
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    const acked = this.#acked;
    for (const d of [...this.#streams]) {
      if (d.finished && d.endOffset !== undefined && acked !== undefined && acked >= d.endOffset) {
        this.#streams.delete(d);
        d.end('delivered', d.bytes, true, this.#info, lastAckAt(this.#info!, this.#infoAt));
      } else this.#endUndelivered(d, this.#stalled ? 'stalled' : 'closed');
    }
    this.#onIdle(this);
  }

  /** Ends every delivery now (the server is closing). */
  shutdown(): void {
    this.#read();
    for (const d of [...this.#streams]) this.#endUndelivered(d, 'shutdown');
    if (this.#timer) clearTimeout(this.#timer);
    this.#onIdle(this);
  }
}

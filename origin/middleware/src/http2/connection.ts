/**
 * An HTTP/2 session's deliveries: many responses at once on one TCP connection, whose socket pace
 * covers them all. The pace follows sammy-pacing-protocol's shared-connection rules
 * (decideConnectionPace): while any response on the session is still being sent or awaits its
 * acknowledgement, the pace only rises (until a media segment without rtp unpaces it: the player's
 * initial phase after a seek or a stall); on an idle session each request's own rtp (or none) decides.
 * While the session is kernel-paced its bodies wait at the send gate (socket/connection-socket.ts
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
import { constants as h2, type Http2ServerRequest, type Http2Session } from 'node:http2';
import { decideConnectionPace, kbpsToBytesPerSecond, type DeliveryEndReason } from 'sammy-pacing-protocol';
import type { Admission } from '../engine/admission.js';
import { CLIENT_RESET_BURST, ClientResets } from './client-resets.js';
import { ConnectionSocket, sendGateBytes } from '../socket/connection-socket.js';
import type { ReleasePolicy } from '../body/held-body.js';
import { StreamDelivery } from './stream.js';
import type { EngineSettings, PacedConnection } from '../engine/contract.js';
import type { PacedResponse } from '../engine/paced-response.js';
import { AckTracker, MAX_POLL_MS, MIN_POLL_MS } from '../socket/ack-tracker.js';

export class Http2Connection implements PacedConnection {
  readonly id: number;
  readonly #conn: ConnectionSocket;
  readonly #session: Http2Session;
  readonly #socket: Socket;
  readonly #admission: Admission;
  readonly #settings: EngineSettings;
  readonly #onIdle: (c: Http2Connection) => void;
  readonly #streams = new Set<StreamDelivery>();
  /** Where its bodies wait while the connection is kernel-paced. */
  readonly #sendGate: ReleasePolicy;
  readonly #clientResets = new ClientResets();
  /** The pace on the connection (the kernel's, or the userspace pacers'); undefined when unpaced. */
  #paceKbps: number | undefined;
  /** The client's acknowledgements (TCP_INFO and SIOCOUTQ), the poll timer, the slow-reader policy; stalled, closed. */
  readonly #acks: AckTracker;
  /** Unacknowledged bytes in the kernel and in Node's TLS buffer at the last read. */
  #heldAtRead = Infinity;

  constructor(id: number, session: Http2Session, admission: Admission, settings: EngineSettings, onIdle: (c: Http2Connection) => void) {
    this.id = id;
    this.#session = session;
    const socket = (this.#socket = session.socket as Socket);
    this.#conn = new ConnectionSocket(socket);
    this.#admission = admission;
    this.#settings = settings;
    this.#onIdle = onIdle;
    this.#acks = new AckTracker(this.#conn, { ...settings, debug: (m) => settings.log.debug(m) }, true);
    this.#sendGate = this.#sendGatePolicy();
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
  get #streamsSending(): number {
    if (this.#acks.closed || this.#streams.size === 0) return 0;
    let sending = 0;
    let sentOffset: number | undefined;
    for (const d of this.#streams) {
      if (!d.finished || d.buffered > 0 || d.endOffset === undefined) {
        sending++;
        continue;
      }
      // Without TCP_INFO (-1) nothing says the kernel has sent it: count it.
      sentOffset ??= this.#acks.sentOffset();
      if (d.endOffset > sentOffset || sentOffset < 0) sending++;
    }
    return sending;
  }

  /**
   * Bytes of the session waiting in Node's TLS socket. The session's socket is node:http2's proxy, which
   * throws on any access once the session has let go of it: never touched after close, and guarded.
   */
  #socketBuffered(): number {
    if (this.#acks.closed) return 0;
    try {
      return this.#socket.writableLength;
    } catch {
      return 0;
    }
  }

  /** Decides the response's pace on the session, sets it, and lets its handler run. */
  deliver(response: PacedResponse): void {
    // Node closes a server stream with RST_STREAM(NO_ERROR) once its response counts as finished if
    // nothing read the request, even while the final DATA frame (END_STREAM) still waits for the
    // client's window: a strict client then discards a whole response. Reading the request, empty
    // when its HEADERS ended the stream, keeps Node on the normal close.
    const stream = (response.req as unknown as Http2ServerRequest).stream;
    if (stream.endAfterHeaders) stream.resume();
    // A bodiless request other than GET or HEAD (a POST to a file: serve-static's 405) is answered inside
    // Node's read of its HEADERS, without a body, so its stream closed before nghttp2 read the rest of
    // that read: DATA the client sent on the half-closed stream was then ignored, or ended the session,
    // instead of getting STREAM_CLOSED (RFC 9113 §6.1; h2spec http2/6.1/2). Its handler runs once the
    // read is done. Not GETs: they wait for a file lookup anyway, and run at once so that a client's
    // resets are counted as they come (deferred, Node 26's nghttp2 met 1000 resets of one read first
    // and ended a rapid-reset session with INTERNAL_ERROR, not ENHANCE_YOUR_CALM).
    const method = response.req.method;
    if (stream.endAfterHeaders && method !== 'GET' && method !== 'HEAD') setImmediate(() => this.#admit(response, stream));
    else this.#admit(response, stream);
  }

  #admit(response: PacedResponse, stream: Http2ServerRequest['stream']): void {
    if (stream.destroyed || this.#acks.closed) {
      // Reset (or its session gone) before its handler ran: nothing was sent, nothing will be. A
      // client's reset still counts against its budget (rapid reset: HEADERS and RST_STREAM in one write).
      if ((stream.rstCode ?? 0) !== 0) this.#countClientReset();
      response.end('closed', 0, true, undefined);
      return;
    }
    const concurrent = this.#streamsSending;
    const decision = decideConnectionPace({
      shared: true,
      requestPaceKbps: response.request.plannedPaceKbps,
      connectionPaceKbps: this.#paceKbps,
      busy: concurrent > 0,
      objectType: response.request.objectType,
    });
    const kernelPaceBefore = this.#conn.state.kernelPaceKbps;
    const sharedConnection = { reason: decision.reason, concurrent };
    this.#admission.admit(this.#acks, response, { paceKbps: decision.paceKbps, sharedConnection, sendGate: this.#sendGate });
    this.#paceKbps = decision.paceKbps;
    // Raised or lifted: bodies held at the gate may go now.
    if (this.#conn.state.kernelPaceKbps !== kernelPaceBefore) for (const d of this.#streams) d.response.writes.wake();
    this.#track(new StreamDelivery(response));
    response.start();
  }

  #track(delivery: StreamDelivery): void {
    if (this.#acks.closed) {
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
      if (!delivery.finished || reset) this.#endUndelivered(delivery, delivery.stalled || this.#acks.stalled ? 'stalled' : 'closed');
      this.#poll();
    });
    this.#poll();
  }

  /** A client that resets more streams than it may (client-resets.ts) gets GOAWAY(ENHANCE_YOUR_CALM). */
  #countClientReset(): void {
    this.#settings.events?.({ kind: 'client_reset' });
    if (this.#clientResets.allow() || this.#acks.closed || this.#session.destroyed || this.#session.closed) return;
    this.#settings.log.debug(`sammy: HTTP/2 session reset more than ${CLIENT_RESET_BURST} streams at once: GOAWAY (ENHANCE_YOUR_CALM)`);
    // Closed once Node has read the frames at hand: destroyed from inside them, the session sent no GOAWAY.
    const session = this.#session;
    session.goaway(h2.NGHTTP2_ENHANCE_YOUR_CALM);
    this.#settings.events?.({ kind: 'goaway_sent', code: h2.NGHTTP2_ENHANCE_YOUR_CALM });
    session.close(); // refuses new streams at once; destroyed below
    setImmediate(() => session.destroyed || session.destroy());
  }

  /**
   * Lets a body through while the connection is kernel-paced only as long as its unsent bytes (the
   * kernel's, Node's TLS buffer, this middleware's streams) are under the send gate (socket/connection-socket.ts,
   * sendGateBytes); once half of that has left, it tops them up to the gate again.
   */
  #sendGatePolicy(): ReleasePolicy {
    const gateBytes = () => {
      const paceKbps = this.#acks.closed ? undefined : this.#conn.state.kernelPaceKbps;
      return paceKbps === undefined ? undefined : sendGateBytes(paceKbps);
    };
    return {
      allowance: () => {
        const gate = gateBytes();
        return gate === undefined ? Infinity : gate - this.#unsentBytes();
      },
      get minimumBytes() {
        return (gateBytes() ?? 0) / 2;
      },
      waitMs: (need, allowed) => {
        const paceKbps = this.#conn.state.kernelPaceKbps;
        return paceKbps === undefined ? 0 : Math.max(MIN_POLL_MS, ((need - allowed) * 1000) / kbpsToBytesPerSecond(paceKbps));
      },
    };
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
      queued += this.#conn.unsentQueueBytes() ?? 0;
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

  /** Reads the acknowledgements, and with them what the session and each stream held: the bound of an aborted stream's bytes. */
  #read(): void {
    if (!this.#acks.read()) return;
    this.#heldAtRead = this.#acks.sendQueueBytes + this.#socketBuffered();
    for (const d of this.#streams) {
      d.bytesAtRead = d.bytes;
      d.bufferedAtRead = d.buffered;
    }
  }

  #endUndelivered(d: StreamDelivery, reason: DeliveryEndReason): void {
    this.#streams.delete(d);
    // What the stream had written at the last read, less all the connection held then: a lower bound.
    const bytes = Math.max(0, d.bytesAtRead - this.#heldAtRead - d.bufferedAtRead);
    d.end(reason, bytes, d.bytes === 0, this.#acks.info);
  }

  /** The session's one poll loop: ends what was delivered, resets what stalled, and decides the next read. */
  #poll(): void {
    const acks = this.#acks;
    acks.stopPolling();
    // Everything was ended when the session closed; its socket must not be touched again.
    if (acks.closed) return;
    this.#read();
    this.#endDelivered();
    if (this.#streams.size === 0) {
      this.#onIdle(this);
      return;
    }
    if (this.#clientGone()) return;
    const now = performance.now();
    // The slow-reader policy on the connection's acknowledged bytes (read-progress.ts), as on HTTP/1.1:
    // bytes wait in the kernel, or in Node for a stream whose window the client has not opened.
    let waiting = acks.sendQueueBytes > 0;
    let leftNode = 0;
    for (const d of this.#streams) {
      waiting ||= d.waitingBytes > 0;
      leftNode += d.bytes - d.buffered;
    }
    const slow = acks.slowReader(now, leftNode, waiting);
    if (slow !== undefined) {
      acks.stalled = true;
      this.#settings.log.debug(`sammy: HTTP/2 session: ${slow}: destroyed`);
      // Destroying the session destroys its socket (the proxy refuses socket.destroy()).
      this.#session.destroy();
      return;
    }
    if (this.#resetStalledStreams(now)) return;
    acks.pollIn(this.#nextPollMs(), () => this.#poll());
  }

  /**
   * An HTTP/2 client never half-closes: its FIN (TCP CLOSE_WAIT) or reset (CLOSE) means it is gone.
   * A session that stopped reading its socket (after it sent GOAWAY for a connection error) never
   * hears of it, and held its socket, fd and streams for good: destroyed here. True when it was.
   */
  #clientGone(): boolean {
    if (!this.#acks.peerClosed) return false;
    this.#settings.log.debug(`sammy: HTTP/2 client gone (TCP state ${this.#acks.info?.state}) under a live session: destroyed`);
    this.#session.destroy();
    return true;
  }

  /** Ends the finished responses whose last byte the client has acknowledged (without TCP_INFO: handed to the OS). */
  #endDelivered(): void {
    const acks = this.#acks;
    const { acked } = acks;
    if (acked === undefined) {
      // No TCP_INFO (not Linux): a finished response was handed to the OS in full, receipt unknown.
      for (const d of this.#streams) if (d.finished) (this.#streams.delete(d), d.end('sent', d.bytes, false, undefined));
      return;
    }
    const sessionBuffered = this.#sessionBuffered();
    for (const d of this.#streams) {
      if (!d.finished) continue;
      if (d.endOffset === undefined && sessionBuffered === 0 && d.buffered === 0) d.endOffset = acked + acks.sendQueueBytes;
      if (d.endOffset !== undefined && acks.acknowledged(d.endOffset)) this.#endDeliveredStream(d);
    }
  }

  #endDeliveredStream(d: StreamDelivery): void {
    this.#streams.delete(d);
    d.end('delivered', d.bytes, true, this.#acks.info, this.#acks.lastAckAt());
  }

  #nextPollMs(): number {
    const acks = this.#acks;
    if (acks.acked === undefined) return acks.progressCheckMs();
    let writing = false;
    for (const d of this.#streams) {
      if (d.finished) return acks.drainPollMs(Math.max(1, acks.sendQueueBytes), MIN_POLL_MS * 2);
      writing = true;
    }
    // Bodies are being written: a recent read is what bounds an aborted response's bytes (the
    // session's socket is gone by the time its streams hear of a TCP reset).
    return writing ? MAX_POLL_MS : acks.progressCheckMs();
  }

  /**
   * The progress timeout per stream: bytes held in Node (the stream's flow-control window shut, or
   * waiting at the gate) are invisible to the kernel's count, and a client that keeps its connection
   * busy (PINGs) while granting no window would otherwise hold them, and their files, for ever. A
   * stream whose waiting bytes have not moved for the timeout is reset; when no stream of the session
   * moves at all, the session is closed. True when the session was.
   */
  #resetStalledStreams(now: number): boolean {
    const timeout = this.#settings.progressTimeoutMs;
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
      this.#acks.stalled = true;
      this.#settings.log.debug(`sammy: no HTTP/2 stream of a session moved for ${timeout} ms: destroyed`);
      this.#session.destroy();
      return true;
    }
    for (const d of stalled) d.resetStalled();
    return false;
  }

  #close(): void {
    const acks = this.#acks;
    if (acks.closed) return;
    acks.closed = true;
    acks.freeze();
    acks.stopPolling();
    for (const d of [...this.#streams]) {
      if (d.finished && d.endOffset !== undefined && acks.acknowledged(d.endOffset)) this.#endDeliveredStream(d);
      else this.#endUndelivered(d, acks.stalled ? 'stalled' : 'closed');
    }
    this.#onIdle(this);
  }

  /** Ends every delivery now (the server is closing). */
  shutdown(): void {
    this.#read();
    for (const d of [...this.#streams]) this.#endUndelivered(d, 'shutdown');
    this.#acks.stopPolling();
    this.#onIdle(this);
  }
}

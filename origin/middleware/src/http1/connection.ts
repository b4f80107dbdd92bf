/**
 * An HTTP/1.1 connection's deliveries, in request order. One place per socket that knows what the
 * kernel still holds, and so:
 * - admits each response only once the previous one is written, and — when it changes the socket's
 *   pace — once the previous one's bytes have left the socket (TCP_INFO notsent = 0): every response
 *   is paced at its own rate, also with HTTP/1.1 pipelining;
 * - follows the client's acknowledgements (TCP_INFO bytes_acked, polled at an interval derived from
 *   what is left and the pace) and ends each delivery when its last byte is acknowledged;
 * - holds Node's keep-alive timer while a finished response is still draining from the kernel and
 *   re-arms it at the last acknowledgement, and makes a `Connection: close` response wait for it too;
 * - drops (resets) a connection whose client acknowledges nothing for the progress timeout;
 * - caps a paced response's unsent bytes in the kernel until its client has acknowledged as many
 *   (socket/connection-socket.ts, pacedUnsentCapBytes): a client that never reads holds a few hundred KB, not the send buffer.
 */
import type { Socket } from 'node:net';
import type { Admission } from '../engine/admission.js';
import { ConnectionSocket, pacedUnsentCapBytes } from '../socket/connection-socket.js';
import { ResponseDelivery } from './delivery.js';
import type { EngineSettings, PacedConnection } from '../engine/contract.js';
import type { PacedResponse } from '../engine/paced-response.js';
import { AckTracker } from '../socket/ack-tracker.js';

/** Poll interval when no rate is known (an unpaced socket's queue drains at the path's speed). */
const UNKNOWN_RATE_POLL_MS = 5;
/** TCP state: the connection is gone (reset, or fully closed): nothing more can be delivered. */
const TCP_CLOSE = 7;

interface NodeServerSocket extends Socket {
  /** The response Node is writing on this socket (null between responses). Node internal, stable since 0.x. */
  _httpMessage?: unknown;
  resetAndClosing?: boolean;
}

export class Http1Connection implements PacedConnection {
  readonly id: number;
  readonly #conn: ConnectionSocket;
  readonly #socket: NodeServerSocket;
  readonly #admission: Admission;
  readonly #settings: EngineSettings;
  readonly #onIdle: (c: Http1Connection) => void;
  /** Unrecorded deliveries, in request order. */
  readonly #queue: ResponseDelivery[] = [];
  /** The client's acknowledgements (TCP_INFO), the poll timer, the slow-reader policy; stalled, closed. */
  readonly #acks: AckTracker;
  #pumpScheduled = false;
  /** Without TCP_INFO: bytes Node had handed to the kernel at the last look. */
  #leftNode = 0;
  /** Node's keep-alive timeout, held while the last response drains; re-armed at its last acknowledgement. */
  #keepAliveMs: number | undefined;
  #destroyWhenDelivered = false;
  /** Set when the socket is being destroyed: whether the last acknowledgement count is exact. */
  #closing: { exact: boolean } | undefined;
  /** Stream offset where the response the unsent cap was set for begins. */
  #capFrom = 0;

  constructor(id: number, socket: Socket, admission: Admission, settings: EngineSettings, onIdle: (c: Http1Connection) => void) {
    this.id = id;
    this.#socket = socket as NodeServerSocket;
    this.#conn = new ConnectionSocket(socket);
    this.#admission = admission;
    this.#settings = settings;
    this.#onIdle = onIdle;
    this.#acks = new AckTracker(this.#conn, { ...settings, debug: (m) => settings.log.debug(m) });
    this.#hookSocket();
  }

  /** Queues a response; it is admitted (its handler runs) at once when nothing before it is in the way. */
  deliver(response: PacedResponse): void {
    const delivery = new ResponseDelivery(response);
    const { res } = delivery;
    if (this.#acks.closed) {
      delivery.end('closed', undefined, true);
      return;
    }
    this.#queue.push(delivery);
    // A new request restarts Node's keep-alive logic: whatever was held is moot.
    this.#keepAliveMs = undefined;
    res.once('socket', () => this.#schedulePump());
    res.once('prefinish', () => {
      delivery.wireEnd = this.#socket.bytesWritten ?? delivery.wireStart;
    });
    res.once('finish', () => {
      delivery.markDone(true);
      this.#holdKeepAlive();
      this.#schedulePump();
    });
    res.once('close', () => {
      delivery.markDone(false);
      this.#schedulePump();
    });
    this.#pump();
  }

  /** Ends every delivery now (the server is closing), recording what is known. */
  shutdown(): void {
    this.#readInfo();
    const { acked, info } = this.#acks;
    for (const d of this.#queue.splice(0)) d.end(d.deliveredAt(acked ?? -1) ? 'delivered' : 'shutdown', acked, false, info);
    this.#acks.stopPolling();
    this.#onIdle(this);
  }

  #hookSocket(): void {
    const socket = this.#socket;
    // The last acknowledgement count must be read while the fd is still open: `_destroy` runs
    // before Node closes the handle, on every path (error, reset, timeout, end).
    const destroy = socket._destroy;
    socket._destroy = (err, cb) => {
      this.#readInfo();
      this.#acks.freeze();
      const { acked, info } = this.#acks;
      const allAcked = acked !== undefined && acked >= (socket.bytesWritten ?? Infinity);
      this.#closing = { exact: acked !== undefined && (info?.state === TCP_CLOSE || socket.resetAndClosing === true || allAcked) };
      destroy.call(socket, err, cb);
    };
    // Node destroys a `Connection: close` socket as soon as its last byte is in the kernel; keep it
    // (ended: the FIN follows the data) until the client has acknowledged everything.
    const destroySoon = socket.destroySoon;
    socket.destroySoon = () => {
      if (!this.#outstanding()) return destroySoon.call(socket);
      if (socket.writable) socket.end();
      this.#destroyWhenDelivered = true;
      this.#schedulePump();
    };
    socket.once('close', () => {
      this.#acks.closed = true;
      this.#pump();
    });
    // Node drains its buffer into the kernel after each large write, and while capped after each refill:
    // enough to see a reading client pass the cap, and never once a stalled one's window is shut.
    socket.on('drain', () => this.#liftUnsentCap());
  }

  #liftUnsentCap(): void {
    const capBytes = this.#conn.state.unsentCapBytes;
    if (capBytes === undefined) return;
    this.#readInfo();
    if (this.#acks.acknowledged(this.#capFrom + capBytes)) this.#conn.setUnsentCap(undefined);
  }

  /** Node armed its keep-alive timer at `finish`; while bytes are still queued it would cut them off. */
  #holdKeepAlive(): void {
    const socket = this.#socket;
    const armed = socket.timeout;
    if (!armed || socket._httpMessage || !this.#outstanding()) return;
    this.#keepAliveMs = armed;
    socket.setTimeout(0);
  }

  #schedulePump(): void {
    // Never inside Node's own event handling (resOnFinish assigns the next response, then emits).
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  /** Reads the acknowledgements; without TCP_INFO, progress is bytes leaving Node's buffer for the kernel (a slow client that reads is not stalled). */
  #readInfo(): void {
    if (this.#acks.read() === false) this.#leftNode = (this.#socket.bytesWritten ?? 0) - this.#socket.writableLength;
  }

  /** Bytes written to the socket and not yet acknowledged (without TCP_INFO: still in Node's buffer). */
  #outstanding(): number {
    const written = this.#socket.bytesWritten ?? 0;
    const { acked } = this.#acks;
    if (acked === undefined) return this.#socket.writableLength;
    return Math.max(0, written - acked);
  }

  #pump(): void {
    try {
      this.#pumpNow();
    } catch (err) {
      // A bug here must not take the server down: end what is tracked, log it.
      this.#settings.log.warn(`sammy: delivery tracking failed: ${(err as Error).stack ?? String(err)}`);
      for (const d of this.#queue.splice(0)) d.end('closed', undefined, false);
      this.#acks.stopPolling();
      this.#onIdle(this);
    }
  }

  #pumpNow(): void {
    const acks = this.#acks;
    acks.stopPolling();
    this.#readInfo();
    const now = performance.now();
    const { acked, info, closed } = acks;
    const closedAs = acks.stalled ? 'stalled' : 'closed';

    // End what has ended, in order (a later response cannot be delivered before an earlier one).
    while (this.#queue.length > 0) {
      const d = this.#queue[0]!;
      if (acked !== undefined && d.deliveredAt(acked)) d.end('delivered', acked, true, info, acks.lastAckAt());
      else if (acked === undefined && d.finished && !closed) d.end('sent', undefined, false, info);
      else if (closed) d.end(closedAs, acked, this.#closing?.exact ?? false, info);
      else if (d.done && !d.finished && d.admitted) d.end('closed', acked, false, info);
      else break;
      this.#queue.shift();
    }
    if (closed) {
      for (const d of this.#queue.splice(0)) d.end(closedAs, acked, this.#closing?.exact ?? false, info);
    }

    let waitingForDrain = false;
    if (!closed) waitingForDrain = this.#admitNext();

    const outstanding = this.#outstanding();
    if (this.#destroyWhenDelivered && outstanding === 0 && !this.#socket.destroyed) {
      this.#socket.destroy();
      return;
    }
    if (this.#queue.length === 0) {
      this.#rearmKeepAlive();
      this.#onIdle(this);
      if (!this.#destroyWhenDelivered) return;
    }

    // A client that reads slower than the policy's minimum while bytes wait for it is dropped, and its
    // memory freed at once (RST: the kernel does not retry an orphan).
    const slow = acks.slowReader(now, this.#leftNode, outstanding > 0);
    if (slow !== undefined && !this.#socket.destroyed) {
      acks.stalled = true;
      this.#settings.log.debug(`sammy: ${slow}, ${outstanding} bytes outstanding: connection reset`);
      this.#socket.resetAndDestroy();
      return;
    }
    this.#schedule(outstanding, waitingForDrain);
  }

  /** Admits the next queued response if nothing is in its way; true when it waits for the send queue to drain. */
  #admitNext(): boolean {
    const i = this.#queue.findIndex((d) => !d.admitted);
    if (i < 0) return false;
    // Node writes a connection's responses in order: every earlier one must be written...
    for (let j = 0; j < i; j++) if (!this.#queue[j]!.done) return false;
    const d = this.#queue[i]!;
    if (d.done) return false;
    // ... and Node must have given this one the socket (it waits behind responses not tracked here).
    if (d.res.socket !== this.#socket) return false;
    // A new pace must not touch an earlier response's bytes: wait until they have left the socket.
    if (d.kernelPaceKbps !== this.#conn.state.kernelPaceKbps) {
      const notsent = this.#acks.info?.notsentBytes ?? 0;
      if (this.#socket.writableLength > 0 || (this.#acks.acked !== undefined && notsent > 0)) return true;
    }
    const wireStart = this.#socket.bytesWritten ?? 0;
    // Before the handler runs, so that no byte of a paced body is queued past the cap.
    this.#capFrom = wireStart;
    this.#conn.setUnsentCap(d.kernelPaceKbps === undefined ? undefined : pacedUnsentCapBytes(d.kernelPaceKbps));
    this.#admit(d, wireStart);
    return false;
  }

  /** Its turn has come: its pace is set before the head is written, then its handler runs. */
  #admit(d: ResponseDelivery, wireStart: number): void {
    const { response } = d;
    d.admit(this.#socket, wireStart);
    this.#admission.admit(this.#acks, response, { paceKbps: response.request.plannedPaceKbps });
    response.start();
  }

  #rearmKeepAlive(): void {
    const ms = this.#keepAliveMs;
    if (ms === undefined || this.#socket._httpMessage || this.#socket.destroyed || this.#outstanding() > 0) return;
    this.#keepAliveMs = undefined;
    this.#socket.setTimeout(ms);
  }

  #schedule(outstanding: number, waitingForDrain: boolean): void {
    const acks = this.#acks;
    let ms: number | undefined;
    const draining = this.#queue.some((d) => d.finished) || this.#destroyWhenDelivered;
    if (acks.acked !== undefined && (draining || waitingForDrain) && outstanding > 0) {
      const left = waitingForDrain ? (acks.info?.notsentBytes ?? outstanding) : outstanding;
      ms = acks.drainPollMs(left, UNKNOWN_RATE_POLL_MS);
    } else if (this.#queue.some((d) => d.admitted && !d.done) || outstanding > 0) {
      ms = acks.progressCheckMs();
    } else if (waitingForDrain) {
      ms = UNKNOWN_RATE_POLL_MS;
    }
    if (ms !== undefined) acks.pollIn(ms, () => this.#pump());
  }
}

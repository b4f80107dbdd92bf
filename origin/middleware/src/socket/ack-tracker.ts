/**
 * What a connection knows of its client's acknowledgements, HTTP/1.1 and HTTP/2 alike. The kernel
 * tells no one when bytes are acknowledged, so each connection polls TCP_INFO (bytes_acked; an HTTP/2
 * session also SIOCOUTQ, the kernel's unacknowledged queue, to place its streams in the kernel's byte
 * count) — often near the end of what is left, where a record's end time is read, and seldom while
 * nothing drains. The tracker keeps the last read, the slow-reader policy on it (read-progress.ts),
 * and whether the connection stalled or closed; the connection keeps only what differs between the
 * versions (which responses a byte offset belongs to, how a stalled client is cut off).
 */
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';
import type { ConnectionSocket } from './connection-socket.js';
import { ReadProgress } from './read-progress.js';
import type { TcpInfo } from './tcp-info.js';

export const MIN_POLL_MS = 2;
export const MAX_POLL_MS = 250;
/** While nothing drains, acknowledgements are checked this often per progress timeout, and at least every 5 s. */
const PROGRESS_CHECKS_PER_TIMEOUT = 8;
const MAX_PROGRESS_CHECK_MS = 5000;

export interface AckTrackerSettings {
  minReadKbps: number;
  progressTimeoutMs: number;
  /** Debug log line (a failed read). */
  debug(message: string): void;
}

/**
 * The client has closed its side (FIN: TCP CLOSE_WAIT) or reset the connection (CLOSE): Linux TCP
 * states 8 and 7 (include/net/tcp_states.h). An HTTP/2 client never half-closes, so either means gone.
 */
export function peerClosed(state: number | undefined): boolean {
  return state === 7 || state === 8;
}

export class AckTracker {
  readonly socket: ConnectionSocket;
  /** Stream offset the client acknowledged at the last read; undefined without TCP_INFO. */
  acked: number | undefined;
  /** Bytes written and not yet acknowledged (SIOCOUTQ) at the last read; 0 unless read with the send queue. */
  sendQueueBytes = 0;
  info: TcpInfo | undefined;
  /** The client read too slowly and its connection was cut off: its records say `stalled`. */
  stalled = false;
  /** The connection is gone: nothing more can be delivered. */
  closed = false;
  readonly #settings: AckTrackerSettings;
  readonly #withSendQueue: boolean;
  readonly #progress: ReadProgress;
  /** performance.now() when `info` was read. */
  #infoAt = 0;
  /** No more reads: the last one is final (the socket is being destroyed, or the session closed). */
  #frozen = false;
  #timer: NodeJS.Timeout | undefined;

  /** `withSendQueue`: each read also takes SIOCOUTQ, and counts as a read only with it. */
  constructor(socket: ConnectionSocket, settings: AckTrackerSettings, withSendQueue = false) {
    this.socket = socket;
    this.#settings = settings;
    this.#withSendQueue = withSendQueue;
    this.#progress = new ReadProgress(settings.minReadKbps, settings.progressTimeoutMs);
  }

  /**
   * Reads TCP_INFO (and the send queue) into the tracker: true when it did, false when this socket has
   * no TCP_INFO with bytes_acked (not Linux, TLS in userspace, no fd), undefined once frozen or on error.
   */
  read(): boolean | undefined {
    if (this.#frozen) return undefined;
    try {
      const info = this.socket.tcpInfo();
      const queue = this.#withSendQueue ? this.socket.sendQueueBytes() : 0;
      if (!info || info.bytesAcked === undefined || queue === undefined) return false;
      this.acked = Number(info.bytesAcked);
      this.sendQueueBytes = queue;
      this.info = info;
      this.#infoAt = performance.now();
      return true;
    } catch (err) {
      this.#settings.debug(`sammy: TCP_INFO: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** TCP_INFO now, for a report (not kept); undefined without it, and logged when the read fails. */
  readReport(): TcpInfo | undefined {
    try {
      return this.socket.tcpInfo();
    } catch (err) {
      this.#settings.debug(`sammy: TCP_INFO: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** Segments sent with data so far (TCP_INFO data_segs_out), read now; undefined when unknown. */
  dataSegmentsOut(): number | undefined {
    try {
      return this.socket.tcpInfo()?.dataSegsOut;
    } catch {
      return undefined;
    }
  }

  /**
   * Stream offset up to which the kernel has sent (acknowledged plus in flight), read now: -1 when it
   * cannot say, Infinity when the read fails.
   */
  sentOffset(): number {
    try {
      const info = this.socket.tcpInfo();
      const queue = this.socket.sendQueueBytes();
      return info?.bytesAcked === undefined || queue === undefined ? -1 : Number(info.bytesAcked) + queue - (info.notsentBytes ?? 0);
    } catch {
      return Infinity;
    }
  }

  /** The last read is final: later reads do nothing (the fd is about to go). */
  freeze(): void {
    this.#frozen = true;
  }

  /** Whether the client has acknowledged everything up to stream offset `offset` at the last read. */
  acknowledged(offset: number): boolean {
    return this.acked !== undefined && this.acked >= offset;
  }

  /**
   * When the last acknowledgement arrived, performance.now() ms: a record ends at the acknowledgement
   * that completed it, not at the poll that noticed it (a late timer on a loaded machine would
   * otherwise lengthen the duration and lower the achieved rate).
   */
  lastAckAt(): number {
    return this.#infoAt - (this.info?.lastAckRecvMs ?? 0);
  }

  /** The client closed or reset its TCP connection, as of the last read. */
  get peerClosed(): boolean {
    return peerClosed(this.info?.state);
  }

  /** Whether the client of `socket` has closed or reset its TCP connection, read now; false when unknown. */
  static peerClosedNow(socket: ConnectionSocket): boolean {
    try {
      return peerClosed(socket.tcpInfo()?.state);
    } catch {
      return false; // no TCP_INFO here (not Linux)
    }
  }

  /**
   * The slow-reader policy on the acknowledged bytes (without TCP_INFO: `leftNodeBytes`, bytes that left
   * Node): the log line's reason when the client, with bytes `waiting` for it all along, acknowledged
   * too little in a window; undefined while it keeps up.
   */
  slowReader(now: number, leftNodeBytes: number, waiting: boolean): string | undefined {
    const progressBytes = this.acked ?? leftNodeBytes;
    if (!this.#progress.stalled(now, progressBytes, waiting)) return undefined;
    const { minBytes, windowMs } = this.#progress;
    return `${this.#progress.acknowledgedSinceMark(progressBytes)} B acknowledged in ${windowMs} ms (minimum ${Math.round(minBytes)} B)`;
  }

  /** Calls `poll` after `ms`, replacing any poll pending. */
  pollIn(ms: number, poll: () => void): void {
    this.stopPolling();
    this.#timer = setTimeout(poll, ms);
  }

  stopPolling(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Wait before the next progress check while nothing is draining, ms. */
  progressCheckMs(): number {
    return Math.min(MAX_PROGRESS_CHECK_MS, Math.max(MIN_POLL_MS, this.#settings.progressTimeoutMs / PROGRESS_CHECKS_PER_TIMEOUT));
  }

  /**
   * Wait before the next read while `leftBytes` drain, ms: half the time they should take at the best
   * known rate (`unknownRateMs` without one), and no sooner than a fraction of a round trip, before
   * which no acknowledgement can come.
   */
  drainPollMs(leftBytes: number, unknownRateMs: number): number {
    const rate = this.#drainBytesPerSecond();
    const min = Math.max(MIN_POLL_MS, (this.info?.rttUs ?? 0) / 4000);
    return Math.min(MAX_POLL_MS, Math.max(min, rate ? (leftBytes * 1000) / rate / 2 : unknownRateMs));
  }

  /** The rate the queue drains at, best known: the kernel pace, or the latest delivery-rate sample if lower. */
  #drainBytesPerSecond(): number | undefined {
    // Runs on every poll of every busy connection: plain comparisons, nothing allocated.
    const kernelPaceKbps = this.socket.state.kernelPaceKbps;
    const pace = kernelPaceKbps === undefined ? undefined : kbpsToBytesPerSecond(kernelPaceKbps);
    const delivery = this.info?.deliveryRate === undefined ? undefined : Number(this.info.deliveryRate);
    const paceKnown = pace !== undefined && pace > 0 && Number.isFinite(pace);
    const deliveryKnown = delivery !== undefined && delivery > 0 && Number.isFinite(delivery);
    if (paceKnown && deliveryKnown) return Math.min(pace, delivery);
    return paceKnown ? pace : deliveryKnown ? delivery : undefined;
  }
}

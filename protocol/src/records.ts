import type { PacingMechanism } from './server-timing.js';
import type { CmcdObjectType, ConnectionPaceReason } from './shared-connection.js';

/** Where a pacing server publishes its delivery records. */
export const RECORDS_PATH = '/sammy/records';
/** Server-Sent Events stream of delivery records, one `record` event each. */
export const RECORD_EVENTS_PATH = '/sammy/records/events';
/** SSE event name for one delivery record. */
export const RECORD_EVENT = 'record';
/**
 * SSE event a subscriber gets when the server skipped records it could not take (it read too
 * slowly); `data` is a RecordsSkipped JSON object. Its later records still arrive.
 */
export const RECORDS_SKIPPED_EVENT = 'skipped';

export interface RecordsSkipped {
  /** Records left out since the previous event. */
  count: number;
}

/** What the server measured for one finished response. */
export interface DeliveryRecord {
  /**
   * Allocated when the request arrived (increasing, unique per record log), and echoed on the
   * response in Server-Timing (`sammy-id;desc=<id>`, PacingReport.recordId): match a response
   * to its record by this id, never by path and time.
   */
  id: number;
  /** Request path without query (the CMCD parameter never appears here). */
  path: string;
  /** HTTP status sent. */
  status: number;
  /**
   * Body bytes that reached the client: acknowledged by its TCP (TCP_INFO bytes_acked, counted from
   * where this response starts in the connection's byte stream). Exact when `bytesExact`; otherwise a
   * lower bound (the socket was closed while bytes were still unacknowledged and could still arrive),
   * or, with `endReason` `sent`, the bytes handed to the operating system (no TCP_INFO: receipt unknown).
   */
  bytes: number;
  /** Whether `bytes` is an exact count of the body bytes the client acknowledged. */
  bytesExact: boolean;
  /** Body bytes the handler wrote (handed to the socket), whether or not they reached the client. */
  bytesWritten: number;
  /** Wall-clock time of the first body byte written, and of the last byte acknowledged (or the end), ms since the epoch. */
  startedAt: number;
  finishedAt: number;
  /**
   * Duration from the first byte written to the last byte acknowledged (to the end when not all were),
   * ms. 0 when the whole delivery fell within the clock's resolution: the last acknowledgement's time
   * comes from TCP_INFO in kernel ticks (a few ms), so a small response on a fast link can end "before"
   * its first byte was written.
   */
  durationMs: number;
  /** `rtp` the client asked for, kbps; absent when none. */
  requestedRtpKbps?: number;
  /** Pace applied after clamping, kbps; absent when unpaced. */
  appliedPaceKbps?: number;
  /** Achieved rate: `bytes` × 8 / `durationMs`, kbps (bits per ms); absent when `durationMs` is 0: too quick to time, the rate is not known. */
  achievedKbps?: number;
  mechanism: PacingMechanism;
  /** TCP_INFO total retransmits taken during this response (after the last byte minus before the first). */
  retransmits?: number;
  /** TCP_INFO smoothed RTT after the last byte, ms. */
  rttMs?: number;
  congestionControl?: string;
  /**
   * The connection that carried the response (an HTTP/1.1 socket or an HTTP/2 session), numbered by
   * the server from 1: records with the same id shared one TCP connection and so one socket pace.
   */
  connectionId?: number;
  /** HTTP version of the request: `1.1` (a connection's responses one after another) or `2` (shared). */
  httpVersion?: string;
  /** CMCD object type (`ot`) the request carried. */
  objectType?: CmcdObjectType;
  /**
   * Shared connection (HTTP/2) only: how the connection's pace was decided when this request
   * arrived (`appliedPaceKbps` is then the connection's pace, which covered every concurrent response).
   */
  paceReason?: ConnectionPaceReason;
  /** How the delivery ended. */
  endReason: DeliveryEndReason;
  /** The client did not get the whole response (`endReason` is neither `delivered` nor `sent`). */
  aborted: boolean;
}

/**
 * How a delivery ended:
 * - `delivered`: the client acknowledged every byte of the response;
 * - `closed`: the connection closed first (the client went away or reset it, or the response was destroyed);
 * - `stalled`: nothing was acknowledged for the server's progress timeout, so it dropped the connection;
 * - `shutdown`: the server stopped tracking deliveries (closing) before the last acknowledgement;
 * - `sent`: no TCP_INFO (not Linux, no socket fd): the response was handed to the operating system in full, receipt unknown.
 */
export type DeliveryEndReason = 'delivered' | 'closed' | 'stalled' | 'shutdown' | 'sent';
export const DELIVERY_END_REASONS: readonly DeliveryEndReason[] = ['delivered', 'closed', 'stalled', 'shutdown', 'sent'];

import type { PacingMechanism } from './server-timing.js';

/** Where a pacing server publishes its delivery records. */
export const RECORDS_PATH = '/sammy/records';
/** Server-Sent Events stream of delivery records, one `record` event each. */
export const RECORD_EVENTS_PATH = '/sammy/records/events';
/** SSE event name for one delivery record. */
export const RECORD_EVENT = 'record';

/** What the server measured for one finished response. */
export interface DeliveryRecord {
  /** Monotonic id, per server process. */
  id: number;
  /** Request path without query (the CMCD parameter never appears here). */
  path: string;
  /** HTTP status sent. */
  status: number;
  /** Body bytes written. */
  bytes: number;
  /** Wall-clock time the response started and finished, ms since the epoch. */
  startedAt: number;
  finishedAt: number;
  /** Duration from first byte written to last byte acknowledged or flushed, ms. */
  durationMs: number;
  /** `rtp` the client asked for, kbps; absent when none. */
  requestedRtpKbps?: number;
  /** Pace applied after clamping, kbps; absent when unpaced. */
  appliedPaceKbps?: number;
  /** Achieved rate over the body, kbps. */
  achievedKbps: number;
  mechanism: PacingMechanism;
  /** TCP_INFO total retransmits taken during this response (after the last byte minus before the first). */
  retransmits?: number;
  /** TCP_INFO smoothed RTT after the last byte, ms. */
  rttMs?: number;
  congestionControl?: string;
  /** True when the client went away before the last byte. */
  aborted: boolean;
}

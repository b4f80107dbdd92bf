import { RTP_CLAMPS, rtpClampFromText, UNPACED_REASONS, unpacedReasonFromText, type RtpClamp, type UnpacedReason } from './pace-reasons.js';
import { isConnectionPaceReason, type ConnectionPaceReason } from './shared-connection.js';
/**
 * The `Server-Timing` metrics a pacing server reports on each response, shared by the
 * Express origin, the Fastly VCL and the pages that read them. Each metric carries its
 * number in `dur` (unit below) and, where it has one, a label in `desc`.
 */
export const SERVER_TIMING_METRICS = {
  /**
   * `rtp` the client asked for, kbps. Absent when the request carried none. When the pace differs from
   * it, `desc` says why: `"raised to floor"` or `"lowered to ceiling"` (RTP_CLAMPS).
   */
  requestedRtp: 'sammy-rtp',
  /**
   * Pace the server applied, kbps (0 = unpaced); `desc` names the pacing mechanism, and on an unpaced
   * response why, after a colon: `desc="none: rtp absent"` (UNPACED_REASONS).
   */
  appliedPace: 'sammy-pace',
  /** Congestion control of the connection; `desc` names it. */
  congestionControl: 'sammy-cc',
  /** Smoothed round-trip time, ms (TCP_INFO rtt). */
  rtt: 'sammy-rtt',
  /** Minimum round-trip time seen on the connection, ms (TCP_INFO min_rtt). */
  minRtt: 'sammy-minrtt',
  /** Delivery rate the kernel measured, kbps (TCP_INFO delivery_rate). */
  deliveryRate: 'sammy-delivery',
  /** Retransmitted segments on the connection so far (TCP_INFO total_retrans). */
  retransmits: 'sammy-retrans',
  /** The kernel's current pacing rate, kbps (TCP_INFO pacing_rate). */
  pacingRate: 'sammy-pacing',
  /**
   * Id of this response's delivery record; `desc` carries it (an id, not a duration). Lets a client
   * match each response to its own record (DeliveryRecord.id), never by path and time.
   */
  recordId: 'sammy-id',
  /**
   * On a shared (HTTP/2) connection only: how the connection's pace (`sammy-pace`, which then covers
   * this response and every concurrent one) was decided; `desc` is a ConnectionPaceReason (own, kept,
   * raised), `dur` the number of other responses on the connection with bytes still to send when it arrived.
   */
  sharedConnection: 'sammy-conn',
} as const;

/** How a response was paced. `none`: no rtp, or pacing off. */
export type PacingMechanism = 'kernel' | 'userspace' | 'fastly' | 'varnish' | 'none';
export const PACING_MECHANISMS: readonly PacingMechanism[] = ['kernel', 'userspace', 'fastly', 'varnish', 'none'];

/** What a server reports about one response. Absent fields were not known. */
export interface PacingReport {
  requestedRtpKbps?: number;
  appliedPaceKbps?: number;
  mechanism?: PacingMechanism;
  congestionControl?: string;
  rttMs?: number;
  minRttMs?: number;
  deliveryRateKbps?: number;
  retransmits?: number;
  pacingRateKbps?: number;
  /** The response's delivery record id (DeliveryRecord.id), a non-negative integer. */
  recordId?: number;
  /** Shared connection (HTTP/2) only: how its pace was decided, and the other responses in flight then. */
  sharedConnection?: { reason: ConnectionPaceReason; concurrent: number };
  /** Unpaced responses only: why. */
  unpacedReason?: UnpacedReason;
  /** Paced responses whose rtp was clamped: how. */
  rtpClamp?: RtpClamp;
}

type NumericField = Exclude<
  keyof PacingReport,
  'mechanism' | 'congestionControl' | 'recordId' | 'sharedConnection' | 'unpacedReason' | 'rtpClamp'
>;

function isRecordId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

const NUMERIC_FIELDS: ReadonlyArray<[NumericField, string]> = [
  ['requestedRtpKbps', SERVER_TIMING_METRICS.requestedRtp],
  ['appliedPaceKbps', SERVER_TIMING_METRICS.appliedPace],
  ['rttMs', SERVER_TIMING_METRICS.rtt],
  ['minRttMs', SERVER_TIMING_METRICS.minRtt],
  ['deliveryRateKbps', SERVER_TIMING_METRICS.deliveryRate],
  ['retransmits', SERVER_TIMING_METRICS.retransmits],
  ['pacingRateKbps', SERVER_TIMING_METRICS.pacingRate],
];

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Formats a report as one `Server-Timing` header value. */
export function formatServerTiming(report: PacingReport): string {
  const entries: string[] = [];
  for (const [field, name] of NUMERIC_FIELDS) {
    const value = report[field];
    if (value === undefined || !Number.isFinite(value)) continue;
    let entry = `${name};dur=${round3(value)}`;
    if (field === 'appliedPaceKbps' && report.mechanism) entry += `;desc=${report.mechanism}`;
    if (field === 'requestedRtpKbps' && report.rtpClamp && Object.hasOwn(RTP_CLAMPS, report.rtpClamp))
      entry += `;desc="${RTP_CLAMPS[report.rtpClamp]}"`;
    entries.push(entry);
  }
  if (report.appliedPaceKbps === undefined && report.mechanism) {
    // The texts are fixed, with no quote, backslash, comma or semicolon: a valid quoted string that
    // naive splitters of the header also read whole.
    const reason =
      report.unpacedReason && Object.hasOwn(UNPACED_REASONS, report.unpacedReason) ? UNPACED_REASONS[report.unpacedReason] : undefined;
    entries.push(`${SERVER_TIMING_METRICS.appliedPace};dur=0;desc=${reason ? `"${report.mechanism}: ${reason}"` : report.mechanism}`);
  }
  if (report.congestionControl && /^[A-Za-z0-9_-]+$/.test(report.congestionControl)) {
    entries.push(`${SERVER_TIMING_METRICS.congestionControl};desc=${report.congestionControl}`);
  }
  if (isRecordId(report.recordId)) entries.push(`${SERVER_TIMING_METRICS.recordId};desc=${report.recordId}`);
  const shared = report.sharedConnection;
  if (shared && isConnectionPaceReason(shared.reason) && Number.isSafeInteger(shared.concurrent) && shared.concurrent >= 0) {
    entries.push(`${SERVER_TIMING_METRICS.sharedConnection};dur=${shared.concurrent};desc=${shared.reason}`);
  }
  return entries.join(', ');
}

/** One Server-Timing entry as browsers expose it (PerformanceServerTiming). */
export interface ServerTimingEntry {
  name: string;
  duration: number;
  description: string;
}

/** Reads a report from parsed entries, e.g. `performance.getEntriesByType('resource')[i].serverTiming`. */
export function reportFromServerTimingEntries(entries: Iterable<ServerTimingEntry>): PacingReport {
  const byName = new Map<string, ServerTimingEntry>();
  for (const e of entries) byName.set(e.name, e);
  const report: PacingReport = {};
  for (const [field, name] of NUMERIC_FIELDS) {
    const e = byName.get(name);
    if (e && Number.isFinite(e.duration)) report[field] = e.duration;
  }
  const pace = byName.get(SERVER_TIMING_METRICS.appliedPace);
  // `desc` is the mechanism, then on an unpaced response `: ` and why.
  const [mechanism, reasonText] = (pace?.description ?? '').split(': ', 2) as [PacingMechanism, string | undefined];
  if (mechanism && PACING_MECHANISMS.includes(mechanism)) report.mechanism = mechanism;
  const unpacedReason = reasonText === undefined ? undefined : unpacedReasonFromText(reasonText);
  if (unpacedReason) report.unpacedReason = unpacedReason;
  const clamp = rtpClampFromText(byName.get(SERVER_TIMING_METRICS.requestedRtp)?.description ?? '');
  if (clamp) report.rtpClamp = clamp;
  const cc = byName.get(SERVER_TIMING_METRICS.congestionControl)?.description;
  if (cc) report.congestionControl = cc;
  const id = byName.get(SERVER_TIMING_METRICS.recordId)?.description;
  // Digits only: Number('') and Number('0x1f') would pass for ids.
  if (id !== undefined && /^\d{1,15}$/.test(id)) report.recordId = Number(id);
  const shared = byName.get(SERVER_TIMING_METRICS.sharedConnection);
  if (shared && isConnectionPaceReason(shared.description) && Number.isSafeInteger(shared.duration) && shared.duration >= 0) {
    report.sharedConnection = { reason: shared.description, concurrent: shared.duration };
  }
  return report;
}

/** Parses a `Server-Timing` header value (RFC 8941-ish, as the servers here write it). */
export function parseServerTiming(header: string): PacingReport {
  const entries: ServerTimingEntry[] = [];
  for (const raw of header.split(',')) {
    const [name, ...params] = raw.split(';').map((s) => s.trim());
    if (!name) continue;
    const entry: ServerTimingEntry = { name, duration: 0, description: '' };
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      const value = p
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (key === 'dur') entry.duration = Number(value);
      else if (key === 'desc') entry.description = value;
    }
    entries.push(entry);
  }
  return reportFromServerTimingEntries(entries);
}

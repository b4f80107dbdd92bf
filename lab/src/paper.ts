/**
 * The paper's lab numbers (Section 6, sammy-notes §2) and issue 7's targets for the Sammy arm
 * against the unpaced arm. A target is a relative change with a direction.
 */
import type { Neighbour } from './config.js';

export interface Target {
  id: string;
  what: string;
  /** Neighbour whose runs the comparison uses; undefined = all runs of the arm. */
  neighbour?: Neighbour;
  /** The paper's change, percent (unpaced → Sammy). */
  paperPercent?: number;
  paperNote?: string;
  /** Met when change ≤ maxPercent (reductions) or ≥ minPercent (increases), or |change| ≤ withinPercent. */
  maxPercent?: number;
  minPercent?: number;
  withinPercent?: number;
  /** Met when change ≤ upToPercent (no more than this increase). */
  upToPercent?: number;
  targetText: string;
}

export const TARGETS: Target[] = [
  { id: 'chunkThroughput', what: 'video chunk throughput', paperPercent: -53, maxPercent: -50, targetText: '≥ 50% lower' },
  { id: 'meanBitrate', what: 'mean video bitrate', withinPercent: 3, targetText: 'within 3%', paperNote: 'no harm to quality' },
  { id: 'rebuffers', what: 'rebuffer count', targetText: 'no more rebuffers', paperNote: 'unchanged' },
  { id: 'startupDelay', what: 'startup delay', upToPercent: 5, targetText: 'within +5%', paperNote: 'production: −1.29%' },
  { id: 'videoRtt', what: "video flow's own RTT (runs with the UDP neighbour, which builds no queue itself)", neighbour: 'udp', paperPercent: -47, targetText: '(no target)', paperNote: 'the video alone' },
  { id: 'udpDelay', what: 'neighbour UDP one-way delay p50', neighbour: 'udp', paperPercent: -51, maxPercent: -40, targetText: '≥ 40% lower' },
  { id: 'tcpThroughput', what: 'neighbour TCP throughput (mean)', neighbour: 'tcp', paperPercent: 28, minPercent: 20, targetText: '≥ 20% higher', paperNote: '20 → 25.7 Mbps' },
  { id: 'httpResponse', what: 'neighbour HTTP response time (mean)', neighbour: 'http', paperPercent: -18, maxPercent: -15, targetText: '≥ 15% lower', paperNote: '1095 → 898 ms' },
  { id: 'videoNeighbour', what: 'second session startup delay', neighbour: 'video', paperPercent: -4, targetText: '(no target)', paperNote: '≈ 50 ms' },
];

export type Verdict = { met: boolean | undefined; missedBy?: number; text: string };

/** Whether a change meets its target, and by how many percentage points it misses. */
export function judge(t: Target, changePercent: number | undefined, extra?: { sammyRebuffers?: number; unpacedRebuffers?: number }): Verdict {
  if (t.id === 'rebuffers') {
    if (extra?.sammyRebuffers === undefined || extra.unpacedRebuffers === undefined) return { met: undefined, text: 'n/a' };
    const met = extra.sammyRebuffers <= extra.unpacedRebuffers;
    return { met, text: met ? 'met' : `missed: ${extra.sammyRebuffers - extra.unpacedRebuffers} more` };
  }
  if (changePercent === undefined) return { met: undefined, text: 'n/a' };
  const pp = (x: number): string => `${x.toFixed(1)} pp`;
  if (t.maxPercent !== undefined) {
    const met = changePercent <= t.maxPercent;
    return met ? { met, text: 'met' } : { met, missedBy: changePercent - t.maxPercent, text: `missed by ${pp(changePercent - t.maxPercent)}` };
  }
  if (t.minPercent !== undefined) {
    const met = changePercent >= t.minPercent;
    return met ? { met, text: 'met' } : { met, missedBy: t.minPercent - changePercent, text: `missed by ${pp(t.minPercent - changePercent)}` };
  }
  if (t.withinPercent !== undefined) {
    const over = Math.abs(changePercent) - t.withinPercent;
    return over <= 0 ? { met: true, text: 'met' } : { met: false, missedBy: over, text: `missed by ${pp(over)}` };
  }
  if (t.upToPercent !== undefined) {
    const over = changePercent - t.upToPercent;
    return over <= 0 ? { met: true, text: 'met' } : { met: false, missedBy: over, text: `missed by ${pp(over)}` };
  }
  return { met: undefined, text: '—' };
}

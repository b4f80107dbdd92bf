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
  /** Met when change ≤ maxPercent (a reduction, or at most this increase) or ≥ minPercent (increases), or |change| ≤ withinPercent. */
  maxPercent?: number;
  minPercent?: number;
  withinPercent?: number;
  targetText: string;
  /** How the report prints the arms' values: unit and decimals. */
  unit: string;
  digits: number;
}

export const TARGETS: Target[] = [
  {
    id: 'chunkThroughput',
    what: 'video chunk throughput',
    paperPercent: -53,
    maxPercent: -50,
    targetText: '≥ 50% lower',
    unit: 'Mbps',
    digits: 1,
  },
  {
    id: 'meanBitrate',
    what: 'mean video bitrate',
    withinPercent: 3,
    targetText: 'within 3%',
    paperNote: 'no harm to quality',
    unit: 'kbps',
    digits: 0,
  },
  { id: 'rebuffers', what: 'rebuffer count', targetText: 'no more rebuffers', paperNote: 'unchanged', unit: '', digits: 0 },
  {
    id: 'startupDelay',
    what: 'startup delay',
    maxPercent: 5,
    targetText: 'within +5%',
    paperNote: 'production: −1.29%',
    unit: 'ms',
    digits: 0,
  },
  {
    id: 'videoRtt',
    what: "video flow's own RTT (runs with the UDP neighbour, which builds no queue itself)",
    neighbour: 'udp',
    paperPercent: -47,
    targetText: '(no target)',
    paperNote: 'the video alone',
    unit: 'ms',
    digits: 2,
  },
  {
    id: 'udpDelay',
    what: 'neighbour UDP one-way delay p50',
    neighbour: 'udp',
    paperPercent: -51,
    maxPercent: -40,
    targetText: '≥ 40% lower',
    unit: 'ms',
    digits: 2,
  },
  {
    id: 'tcpThroughput',
    what: 'neighbour TCP throughput (mean)',
    neighbour: 'tcp',
    paperPercent: 28,
    minPercent: 20,
    targetText: '≥ 20% higher',
    paperNote: '20 → 25.7 Mbps',
    unit: 'Mbps',
    digits: 1,
  },
  {
    id: 'httpResponse',
    what: 'neighbour HTTP response time (mean)',
    neighbour: 'http',
    paperPercent: -18,
    maxPercent: -15,
    targetText: '≥ 15% lower',
    paperNote: '1095 → 898 ms',
    unit: 'ms',
    digits: 0,
  },
  {
    id: 'videoNeighbour',
    what: 'second session startup delay',
    neighbour: 'video',
    paperPercent: -4,
    targetText: '(no target)',
    paperNote: '≈ 50 ms',
    unit: 'ms',
    digits: 0,
  },
];

export type Verdict = { text: string };

/** Whether a change meets its target, and if not by how many percentage points it misses. */
export function judge(
  t: Target,
  changePercent: number | undefined,
  extra?: { sammyRebuffers?: number; unpacedRebuffers?: number },
): Verdict {
  if (t.id === 'rebuffers') {
    if (extra?.sammyRebuffers === undefined || extra.unpacedRebuffers === undefined) return { text: 'n/a' };
    return {
      text: extra.sammyRebuffers <= extra.unpacedRebuffers ? 'met' : `missed: ${extra.sammyRebuffers - extra.unpacedRebuffers} more`,
    };
  }
  if (changePercent === undefined) return { text: 'n/a' };
  // How far past its limit the change is: met when ≤ 0.
  const over =
    t.maxPercent !== undefined
      ? changePercent - t.maxPercent
      : t.minPercent !== undefined
        ? t.minPercent - changePercent
        : t.withinPercent !== undefined
          ? Math.abs(changePercent) - t.withinPercent
          : undefined;
  if (over === undefined) return { text: '—' };
  return { text: over <= 0 ? 'met' : `missed by ${over.toFixed(1)} pp` };
}

import { DEFAULT_PARAMETERS } from '../config.js';

/** One measured chunk download. */
export interface ThroughputSample {
  bytes: number;
  durationMs: number;
}

/** Chunk throughput of a download, kbps. */
export function chunkThroughputKbps(sample: ThroughputSample): number {
  return (sample.bytes * 8) / Math.max(sample.durationMs, 1);
}

/**
 * Harmonic mean of the most recent samples (kbps): dominated by the slow ones, which is what
 * a rule that must not stall wants (the estimator of HYB and dash.js's throughput rule family).
 */
export function harmonicMeanKbps(samplesKbps: readonly number[], window: number = DEFAULT_PARAMETERS.throughputWindow): number | undefined {
  const recent = samplesKbps.filter((s) => Number.isFinite(s) && s > 0).slice(-window);
  if (recent.length === 0) return undefined;
  return recent.length / recent.reduce((sum, s) => sum + 1 / s, 0);
}

/** Appends a sample to a bounded list, dropping the oldest; returns a new array. */
export function appendBounded(samples: readonly number[], sample: number, max: number): number[] {
  if (!Number.isFinite(sample) || sample <= 0) return [...samples];
  return [...samples, sample].slice(-max);
}

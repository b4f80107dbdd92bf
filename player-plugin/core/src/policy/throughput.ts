import { DEFAULT_PARAMETERS } from '../config.js';

/**
 * Harmonic mean of the most recent samples (kbps): dominated by the slow ones, which is what
 * a rule that must not stall wants (the estimator of HYB and dash.js's throughput rule family).
 */
export function harmonicMeanKbps(samplesKbps: readonly number[], window: number = DEFAULT_PARAMETERS.throughputWindow): number | undefined {
  const recent = samplesKbps.filter((s) => Number.isFinite(s) && s > 0).slice(-window);
  if (recent.length === 0) return undefined;
  return recent.length / recent.reduce((sum, s) => sum + 1 / s, 0);
}

/** Appends a sample to a bounded list, dropping the oldest; returns a new array. (Callers append measured throughputs; `harmonicMeanKbps` ignores any that is not positive and finite.) */
export function appendBounded(samples: readonly number[], sample: number, max: number): number[] {
  return [...samples, sample].slice(-max);
}

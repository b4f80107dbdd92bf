/**
 * Statistics for per-run metrics and their spread across runs. The quantiles and means are the
 * ones the demo and the pages use (`sammy-pacing-protocol/measure`); the lab adds spread, percent
 * change and its seeded run order.
 */
import { median, relativeChange } from 'sammy-pacing-protocol/measure';

export { mean, median, quantile } from 'sammy-pacing-protocol/measure';

export interface Spread {
  n: number;
  median: number | undefined;
  min: number | undefined;
  max: number | undefined;
}

export function spread(values: ReadonlyArray<number | undefined>): Spread {
  const xs = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return { n: xs.length, median: median(xs), min: xs.length ? Math.min(...xs) : undefined, max: xs.length ? Math.max(...xs) : undefined };
}

/** Relative change from `base` to `value`, in percent. */
export function percentChange(base: number | undefined, value: number | undefined): number | undefined {
  const change = relativeChange(base, value);
  return change === undefined ? undefined : change * 100;
}

/** Seeded PRNG (mulberry32): the same seed gives the same run order and blob bytes. */
export { seededRandom as rng } from '@sammy/test-support';

export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const a = items.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a;
}

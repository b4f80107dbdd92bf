/** Small, dependency-free statistics for per-run metrics and their spread across runs. */

export function quantile(values: readonly number[], q: number): number | undefined {
  const xs = values.filter(Number.isFinite).slice().sort((a, b) => a - b);
  if (xs.length === 0) return undefined;
  const pos = (xs.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = xs[lo] as number;
  const b = xs[hi] as number;
  return a + (b - a) * (pos - lo);
}

export const median = (values: readonly number[]): number | undefined => quantile(values, 0.5);

export function mean(values: readonly number[]): number | undefined {
  const xs = values.filter(Number.isFinite);
  return xs.length === 0 ? undefined : xs.reduce((s, x) => s + x, 0) / xs.length;
}

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
  if (base === undefined || value === undefined || base === 0) return undefined;
  return ((value - base) / Math.abs(base)) * 100;
}

/** Seeded PRNG (mulberry32): the same seed gives the same run order and blob bytes. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const a = items.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a;
}

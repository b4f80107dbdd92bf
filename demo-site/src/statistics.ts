/** Median of the finite values; undefined for none. */
export function median(values: readonly number[]): number | undefined {
  const xs = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (xs.length === 0) return undefined;
  const mid = xs.length >> 1;
  return xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

/** Arithmetic mean of the finite values; undefined for none. */
export function mean(values: readonly number[]): number | undefined {
  const xs = values.filter(Number.isFinite);
  if (xs.length === 0) return undefined;
  return xs.reduce((sum, x) => sum + x, 0) / xs.length;
}

/** `after / before − 1` (−0.6 = 60 % lower); undefined when either is missing or `before` is 0. */
export function relativeChange(before: number | undefined, after: number | undefined): number | undefined {
  if (before === undefined || after === undefined || before === 0) return undefined;
  return after / before - 1;
}

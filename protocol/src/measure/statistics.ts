/**
 * Small statistics over measured samples, shared by the demo page, the lab page and bench, and the
 * end-to-end tests. Non-finite values (a sample that was never measured) are ignored; an empty
 * input gives `undefined`, never NaN, so a missing figure cannot pass as a number.
 */

function finiteSorted(values: readonly number[]): number[] {
  return values.filter(Number.isFinite).sort((a, b) => a - b);
}

/**
 * The `q` quantile (0 = min, 0.5 = median, 1 = max) with linear interpolation between the two
 * nearest ranks (type 7, as R and NumPy default).
 */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile: q must be within [0, 1], got ${q}`);
  const xs = finiteSorted(values);
  if (xs.length === 0) return undefined;
  const pos = (xs.length - 1) * q;
  const lo = Math.floor(pos);
  const a = xs[lo]!;
  const b = xs[Math.ceil(pos)]!;
  return a + (b - a) * (pos - lo);
}

/** Median of the finite values: the middle one, or the mean of the two middle ones. */
export function median(values: readonly number[]): number | undefined {
  return quantile(values, 0.5);
}

/** Arithmetic mean of the finite values. */
export function mean(values: readonly number[]): number | undefined {
  const xs = values.filter(Number.isFinite);
  if (xs.length === 0) return undefined;
  return xs.reduce((sum, x) => sum + x, 0) / xs.length;
}

/**
 * `(after − before) / |before|`: −0.6 = 60 % lower. Undefined when either is missing or `before` is 0
 * (no change can be expressed relative to nothing).
 */
export function relativeChange(before: number | undefined, after: number | undefined): number | undefined {
  if (before === undefined || after === undefined || before === 0) return undefined;
  return (after - before) / Math.abs(before);
}

import { describe, expect, it } from 'vitest';
import { mean, median, quantile, relativeChange } from '../../src/measure/index.js';

describe('statistics', () => {
  it('median of odd and even counts, ignoring non-finite values', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([Number.NaN, 2, Infinity])).toBe(2);
    expect(median([])).toBeUndefined();
    expect(median([Number.NaN])).toBeUndefined();
  });

  it('does not reorder its input', () => {
    const xs = [3, 1, 2];
    median(xs);
    expect(xs).toEqual([3, 1, 2]);
  });

  it('quantiles interpolate between ranks; 0 and 1 are min and max', () => {
    const xs = [10, 20, 30, 40, 50];
    expect(quantile(xs, 0)).toBe(10);
    expect(quantile(xs, 1)).toBe(50);
    expect(quantile(xs, 0.95)).toBeCloseTo(48);
    expect(quantile([1, 2], 0.25)).toBeCloseTo(1.25);
    expect(quantile([], 0.5)).toBeUndefined();
  });

  it('refuses a quantile outside [0, 1]', () => {
    for (const q of [-0.1, 1.5, Number.NaN]) expect(() => quantile([1], q)).toThrow(RangeError);
  });

  it('mean of the finite values', () => {
    expect(mean([1, 2, 6])).toBe(3);
    expect(mean([1, Number.NaN, 3])).toBe(2);
    expect(mean([])).toBeUndefined();
  });

  it('relative change', () => {
    expect(relativeChange(100, 40)).toBeCloseTo(-0.6);
    expect(relativeChange(20, 25.7)).toBeCloseTo(0.285);
    expect(relativeChange(-10, -5)).toBeCloseTo(0.5);
    expect(relativeChange(0, 40)).toBeUndefined();
    expect(relativeChange(undefined, 40)).toBeUndefined();
    expect(relativeChange(40, undefined)).toBeUndefined();
  });
});

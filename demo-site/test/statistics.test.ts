import { describe, expect, it } from 'vitest';
import { mean, median, relativeChange } from '../src/statistics.js';

describe('statistics', () => {
  it('median of odd and even counts, ignoring non-finite values', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([Number.NaN, 2])).toBe(2);
    expect(median([])).toBeUndefined();
  });

  it('mean', () => {
    expect(mean([1, 2, 6])).toBe(3);
    expect(mean([])).toBeUndefined();
  });

  it('relative change', () => {
    expect(relativeChange(100, 40)).toBeCloseTo(-0.6);
    expect(relativeChange(0, 40)).toBeUndefined();
    expect(relativeChange(undefined, 40)).toBeUndefined();
  });
});

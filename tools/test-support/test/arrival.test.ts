import { describe, expect, it } from 'vitest';
import { burstsOf, seededRandom } from '../src/arrival.js';

describe('burstsOf', () => {
  it('sums reads less than the gap apart into one burst', () => {
    expect(
      burstsOf([
        [0, 10],
        [0.5, 20],
        [2, 5],
        [2.9, 5],
        [10, 1],
      ]),
    ).toEqual([30, 10, 1]);
  });
  it('uses the gap it is given and ignores empty logs', () => {
    expect(
      burstsOf(
        [
          [0, 1],
          [3, 1],
        ],
        5,
      ),
    ).toEqual([2]);
    expect(burstsOf([])).toEqual([]);
  });
});

describe('seededRandom', () => {
  it('repeats for a seed, differs across seeds, stays in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const xs = Array.from({ length: 100 }, () => a());
    expect(xs).toEqual(Array.from({ length: 100 }, () => b()));
    expect(xs[0]).not.toBe(c());
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
  });
});

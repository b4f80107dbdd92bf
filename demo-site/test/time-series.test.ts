import { describe, expect, it } from 'vitest';
import { alignSeries, lastValueIndexes, TimeSeries } from '../src/time-series.js';

describe('TimeSeries', () => {
  it('keeps points in time order even when one arrives late', () => {
    const s = new TimeSeries();
    s.push(1000, 1);
    s.push(3000, 3);
    s.push(2000, 2);
    expect(s.points().map((p) => p.t)).toEqual([1000, 2000, 3000]);
    expect(s.last()).toEqual({ t: 3000, v: 3 });
  });

  it('drops the oldest points beyond its capacity', () => {
    const s = new TimeSeries(2);
    s.push(1, 1);
    s.push(2, 2);
    s.push(3, 3);
    expect(s.points()).toEqual([
      { t: 2, v: 2 },
      { t: 3, v: 3 },
    ]);
  });

  it('ignores points without a time and turns non-finite values into gaps', () => {
    const s = new TimeSeries();
    s.push(Number.NaN, 1);
    s.push(1, Number.POSITIVE_INFINITY);
    expect(s.points()).toEqual([{ t: 1, v: null }]);
  });
});

describe('alignSeries', () => {
  it('joins series on a shared time axis in seconds, missing points undefined, gaps null', () => {
    const a = new TimeSeries();
    const b = new TimeSeries();
    a.push(1000, 10);
    a.push(3000, 30);
    b.push(2000, null);
    b.push(3000, 7);
    expect(alignSeries([a, b])).toEqual([
      [1, 2, 3],
      [10, undefined, 30],
      [undefined, null, 7],
    ]);
  });

  it('keeps only points at or after the window start', () => {
    const a = new TimeSeries();
    a.push(1000, 1);
    a.push(5000, 5);
    expect(alignSeries([a], 2000)).toEqual([[5], [5]]);
  });
});

describe('lastValueIndexes', () => {
  it("gives each series' last value (null and undefined are no value), x its last row, null for an empty series", () => {
    const a = new TimeSeries();
    const b = new TimeSeries();
    const c = new TimeSeries();
    a.push(1000, 1);
    a.push(3000, 3);
    b.push(2000, 2);
    b.push(4000, null);
    const columns = alignSeries([a, b, c]);
    expect(columns[0]).toEqual([1, 2, 3, 4]);
    expect(lastValueIndexes(columns)).toEqual([3, 2, 1, null]);
  });

  it('on no data, nothing', () => {
    expect(lastValueIndexes(alignSeries([new TimeSeries()]))).toEqual([null, null]);
  });
});

import { describe, expect, it } from 'vitest';
import { GraphData, SERIES_NAMES } from '../src/graph-data.js';

describe('GraphData', () => {
  it('counts points per series and clears them all for a new session', () => {
    const data = new GraphData();
    data.series.chunkThroughput.push(1, 20_000);
    data.series.chunkThroughput.push(2, 18_000);
    data.series.paceRate.push(1, null);
    const counts = data.counts();
    expect(Object.keys(counts)).toEqual([...SERIES_NAMES]);
    expect(counts.chunkThroughput).toBe(2);
    expect(counts.paceRate).toBe(1);
    expect(counts.rtt).toBe(0);
    data.clear();
    expect(Object.values(data.counts()).every((n) => n === 0)).toBe(true);
  });

  it('keeps the server record’s achieved rate and the kernel’s delivery rate at response start apart', () => {
    // One is measured over the whole body, the other before the body was sent: one series would mix them.
    expect(SERIES_NAMES).toContain('achievedRate');
    expect(SERIES_NAMES).toContain('tcpDeliveryRate');
    const data = new GraphData();
    data.series.achievedRate.push(1, 15_000);
    expect(data.counts().tcpDeliveryRate).toBe(0);
  });
});

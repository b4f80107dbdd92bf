import { describe, expect, it } from 'vitest';
import { formatDuration, formatRate, formatSignedPercent } from '../src/format.js';

describe('formats', () => {
  it('rates in Mbps with digits matched to the size', () => {
    expect(formatRate(3300)).toBe('3.30 Mbps');
    expect(formatRate(14_870)).toBe('14.9 Mbps');
    expect(formatRate(912_000)).toBe('912 Mbps');
    expect(formatRate(undefined)).toBe('–');
  });

  it('durations in ms or s', () => {
    expect(formatDuration(850.4)).toBe('850 ms');
    expect(formatDuration(12_340)).toBe('12.3 s');
    expect(formatDuration(undefined)).toBe('–');
  });

  it('signed percentages', () => {
    expect(formatSignedPercent(-0.613)).toBe('−61.3 %');
    expect(formatSignedPercent(0.021)).toBe('+2.1 %');
    expect(formatSignedPercent(0)).toBe('±0.0 %');
  });
});

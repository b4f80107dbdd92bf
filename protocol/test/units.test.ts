import { describe, expect, it } from 'vitest';
import { clampPaceKbps, DEFAULT_MIN_PACE_KBPS, kbpsToBytesPerSecond, roundRtpKbps } from '../src/index.js';
import { kbpsToFastlyPace } from '../src/units.js';

describe('rtp units', () => {
  it('rounds to the nearest 100 kbps as CTA-5004 asks', () => {
    expect(roundRtpKbps(15_049)).toBe(15_000);
    expect(roundRtpKbps(15_050)).toBe(15_100);
    expect(roundRtpKbps(12)).toBe(100);
  });
  it('rejects rates that are not positive finite numbers', () => {
    for (const bad of [0, -5, NaN, Infinity]) expect(() => roundRtpKbps(bad)).toThrow(RangeError);
  });
  it('converts kbps to bytes/s for SO_MAX_PACING_RATE and KB/s for Fastly', () => {
    expect(kbpsToBytesPerSecond(8000)).toBe(1_000_000);
    expect(kbpsToFastlyPace(8000)).toBe(1000);
  });
  it('clamps to the slow-read floor, which is Fastly’s 128 KB/s', () => {
    expect(DEFAULT_MIN_PACE_KBPS).toBe(1024);
    expect(clampPaceKbps(300)).toBe(1024);
    expect(clampPaceKbps(5e9)).toBe(1_000_000);
    expect(clampPaceKbps(8000, 100, 10_000)).toBe(8000);
  });
});

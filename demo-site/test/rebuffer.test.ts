import { describe, expect, it } from 'vitest';
import { RebufferLog } from '../src/rebuffer.js';

describe('RebufferLog', () => {
  it('counts stalls and their time; repeated waiting during one stall is one stall', () => {
    const log = new RebufferLog();
    log.stallStarted(1000);
    log.stallStarted(1200);
    log.stallEnded(1500);
    log.stallStarted(4000);
    log.stallEnded(4250);
    expect(log.count).toBe(2);
    expect(log.totalMs(10_000)).toBe(750);
    expect(log.ongoing).toBe(false);
  });

  it('counts a stall still going on up to now', () => {
    const log = new RebufferLog();
    log.stallStarted(1000);
    expect(log.ongoing).toBe(true);
    expect(log.totalMs(1800)).toBe(800);
    expect(log.intervals(1800)).toEqual([{ start: 1000, end: 1800 }]);
  });

  it('ignores an end without a start', () => {
    const log = new RebufferLog();
    log.stallEnded(1000);
    expect(log.count).toBe(0);
    expect(log.totalMs(2000)).toBe(0);
  });
});

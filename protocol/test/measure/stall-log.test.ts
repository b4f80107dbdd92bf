import { describe, expect, it } from 'vitest';
import { closeStalls, StallLog, totalStallTime, type Stall } from '../../src/measure/index.js';

describe('StallLog', () => {
  it('counts stalls and their time; repeated waiting during one stall is one stall', () => {
    const log = new StallLog();
    log.playing(500);
    log.waiting(1000);
    log.waiting(1200);
    log.playing(1500);
    log.waiting(4000);
    log.playing(4250);
    expect(log.count).toBe(2);
    expect(log.totalMs(10_000)).toBe(750);
    expect(log.ongoing).toBe(false);
    expect(log.playbackStartedAt).toBe(500);
  });

  it('the wait before the first frame is startup, not a stall', () => {
    const log = new StallLog();
    log.waiting(100);
    expect(log.count).toBe(0);
    log.playing(900);
    expect(log.count).toBe(0);
    expect(log.playbackStartedAt).toBe(900);
  });

  it('counts a stall still going on up to now', () => {
    const log = new StallLog();
    log.playing(0);
    log.waiting(1000);
    expect(log.ongoing).toBe(true);
    expect(log.totalMs(1800)).toBe(800);
    expect(log.intervals(1800)).toEqual([{ start: 1000, end: 1800 }]);
  });

  it('a playing without a stall changes nothing', () => {
    const log = new StallLog();
    log.playing(0);
    log.playing(1000);
    expect(log.count).toBe(0);
    expect(log.totalMs(2000)).toBe(0);
  });

  it('fills the array it is given, as plain data a page can expose', () => {
    const exposed: Stall[] = [];
    const log = new StallLog(exposed);
    log.playing(0);
    log.waiting(1000);
    expect(exposed).toEqual([{ start: 1000 }]);
    log.playing(1300);
    expect(JSON.parse(JSON.stringify(exposed))).toEqual([{ start: 1000, end: 1300 }]);
  });
});

describe('stalls read back as data', () => {
  it('closes an open stall at now, never before its start', () => {
    expect(closeStalls([{ start: 10, end: 20 }, { start: 50 }], 80)).toEqual([
      { start: 10, end: 20 },
      { start: 50, end: 80 },
    ]);
    expect(closeStalls([{ start: 50 }], 40)).toEqual([{ start: 50, end: 50 }]);
    expect(totalStallTime(closeStalls([{ start: 10, end: 20 }, { start: 50 }], 80))).toBe(40);
  });
});

import { describe, expect, it } from 'vitest';
import { RunLog } from '../src/runs.js';

const chunk = { throughputKbps: 10_000, bitrateKbps: 3000 };

describe('RunLog', () => {
  it('starts no run before playback; a switch then only decides how the first run begins', () => {
    const log = new RunLog(true);
    log.setPaced(500, false);
    expect(log.all()).toEqual([]);
    log.playbackStarted(1000);
    expect(log.all().map((r) => [r.paced, r.startedAt])).toEqual([[false, 1000]]);
  });

  it('ends a run and begins the next at each switch, and ignores a switch to the same state', () => {
    const log = new RunLog(true);
    log.playbackStarted(1000);
    log.setPaced(2000, true);
    log.setPaced(5000, false);
    log.setPaced(9000, true);
    expect(log.all().map((r) => [r.index, r.paced, r.startedAt, r.endedAt])).toEqual([
      [1, true, 1000, 5000],
      [2, false, 5000, 9000],
      [3, true, 9000, undefined],
    ]);
    expect(log.current()?.index).toBe(3);
  });

  it('a later playing event (after a stall) starts no new run', () => {
    const log = new RunLog(true);
    log.playbackStarted(1000);
    log.playbackStarted(8000);
    expect(log.all()).toHaveLength(1);
  });

  it('counts a chunk in the run its request started in, none before playback', () => {
    const log = new RunLog(true);
    expect(log.addChunk(500, chunk)).toBeUndefined();
    log.playbackStarted(1000);
    log.setPaced(5000, false);
    expect(log.addChunk(4999, chunk)?.index).toBe(1);
    expect(log.addChunk(5000, chunk)?.index).toBe(2);
    expect(log.all().map((r) => r.chunks.length)).toEqual([1, 1]);
  });
});

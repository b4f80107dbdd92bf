import { describe, expect, it } from 'vitest';
import { DemoSession, type ChunkSample } from '../src/session.js';

function video(time: number, throughputKbps: number, bitrateKbps: number, durationMs = 100): ChunkSample {
  return { time, mediaType: 'video', durationMs, throughputKbps, bitrateKbps };
}

describe('DemoSession', () => {
  it('measures startup delay from the play request to the first frame', () => {
    const s = new DemoSession(true);
    s.playRequested(1000);
    s.waiting(1100); // still starting up: not a rebuffer
    s.playing(1850);
    s.playing(5000);
    const summary = s.summary(6000);
    expect(summary.startupDelayMs).toBe(850);
    expect(summary.rebufferCount).toBe(0);
  });

  it('summarises video chunks only: mean bitrate, median chunk throughput', () => {
    const s = new DemoSession(true);
    s.playRequested(0);
    s.addChunk(video(500, 40_000, 1000));
    s.addChunk({ ...video(600, 1, 128), mediaType: 'audio' });
    s.playing(1000);
    s.addChunk(video(2000, 20_000, 3000));
    s.addChunk(video(3000, 10_000, 3000));
    const summary = s.summary(4000);
    expect(summary.chunks).toBe(3);
    expect(summary.meanBitrateKbps).toBeCloseTo(7000 / 3);
    expect(summary.medianChunkThroughputKbps).toBe(20_000);
  });

  it('counts rebuffers after playback started, with an ongoing one up to now', () => {
    const s = new DemoSession(true);
    s.playRequested(0);
    s.playing(1000);
    s.waiting(2000);
    s.playing(2600);
    s.waiting(9000);
    const summary = s.summary(9500);
    expect(summary.rebufferCount).toBe(2);
    expect(summary.rebufferMs).toBe(1100);
    expect(summary.runs[0]).toMatchObject({ rebufferCount: 2, rebufferMs: 1100 });
  });

  it('compares paced and unpaced runs only once both exist', () => {
    const s = new DemoSession(false);
    s.playRequested(0);
    s.playing(1000);
    s.addChunk(video(2000, 100_000, 3000));
    s.addChunk(video(3000, 80_000, 3000));
    expect(s.summary(4000).comparison).toBeUndefined();

    s.setPaced(10_000, true);
    // Requested at 9 900 (before the switch): still an unpaced chunk.
    s.addChunk(video(10_050, 120_000, 3000, 150));
    s.addChunk(video(12_000, 16_000, 3000));
    s.addChunk(video(14_000, 14_000, 2400));
    const summary = s.summary(15_000);
    expect(summary.runs.map((r) => [r.paced, r.chunks, r.durationMs])).toEqual([
      [false, 3, 9000],
      [true, 2, 5000],
    ]);
    const c = summary.comparison!;
    expect(c.unpacedMedianChunkThroughputKbps).toBe(100_000);
    expect(c.pacedMedianChunkThroughputKbps).toBe(15_000);
    expect(c.chunkThroughputReduction).toBeCloseTo(0.85);
    expect(c.unpacedMeanBitrateKbps).toBe(3000);
    expect(c.pacedMeanBitrateKbps).toBe(2700);
    expect(c.bitrateChange).toBeCloseTo(-0.1);
  });
});

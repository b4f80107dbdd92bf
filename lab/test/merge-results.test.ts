/**
 * A report merged from several results folders, without root: the folders must have measured the
 * same thing, runs are numbered again per cell in the order they ended, arms, neighbours, buffer
 * targets and traces are the union, failed runs are all kept, and the preface says where each part came from.
 */
import { describe, expect, it } from 'vitest';
import type { Arm, BenchConfig, Neighbour } from '../src/config.js';
import type { RawRun } from '../src/measurements.js';
import { mergeBenches, type ResultsFolder } from '../src/merge-results.js';
import type { BenchEnvironment } from '../src/report.js';

const trace = (id: string) => ({
  id,
  family: id.split('/')[0]!,
  file: `/t/${id}`,
  format: 'seconds-mbps',
  periodSeconds: 240,
  meanMbps: 4,
  sessionMeanMbps: 4.4,
  peakMbps: 6,
});

function folder(
  dir: string,
  runs: Array<[Arm, Neighbour, number, number, string?]>,
  over: Partial<ResultsFolder['config']> = {},
  startedAt = '2026-11-28T04:00:00.000Z',
): ResultsFolder {
  const config = {
    arms: [],
    neighbours: [],
    edge: 'none',
    runs: 3,
    durationSeconds: 50,
    cc: 'cubic',
    neighbourCc: 'reno',
    seed: 1,
    queueBytes: 100_000,
    rttMs: 5,
    rateMbps: 40,
    manifestPath: '/media/lab/manifest.mpd',
    mediaDir: '/m',
    bufferSeconds: 30,
    tcpStartAfterPlaybackSeconds: 10,
    videoNeighbourDelaySeconds: 5,
    httpBytes: 3e6,
    httpGapMs: 500,
    udpRateMbps: 5,
    udpShareOfTrace: 0.125,
    udpPayloadBytes: 1200,
    resultsDir: '/r',
    plainProgress: true,
    traceSource: '/traces',
    traces: ['fcc/a'],
    ...over,
  } as unknown as ResultsFolder['config'];
  const env = {
    queueBytes: 100_000,
    rateMbps: 40,
    burstBytes: 4542,
    topVideoKbps: 3300,
    capKbps: 13_200,
    cc: 'cubic',
    ccPinnedBy: '',
    kernel: 'k',
    chromium: 'c',
    startedAt,
    failedRuns: [],
    wallSeconds: 600,
    delayLine: '{}',
    traces: [trace('fcc/a')],
  } as BenchEnvironment;
  const raw = runs.map(
    ([arm, neighbour, index, endedAt, t]) =>
      ({
        arm,
        neighbour,
        index,
        endedAt,
        bufferSeconds: (config as BenchConfig).bufferSeconds,
        trace: { id: t ?? 'fcc/a' },
        loadAvg: { start: [1], end: [2 + index] },
      }) as unknown as RawRun,
  );
  return { dir, config, env, runs: raw };
}

describe('merging results folders', () => {
  it('numbers runs of each cell again in the order they ended, and takes the union of arms, neighbours and traces', () => {
    const controls = folder('a', [
      ['unpaced', 'udp', 1, 100],
      ['dashjs-rtp', 'udp', 1, 200],
      ['unpaced', 'udp', 2, 300],
      ['unpaced', 'tcp', 1, 400],
    ]);
    const sammy = folder(
      'b',
      [
        ['sammy', 'udp', 1, 1000],
        ['unpaced', 'udp', 1, 1100],
        ['sammy-neighbour-first', 'udp', 1, 1200],
      ],
      {},
      '2026-11-28T04:50:00.000Z',
    );
    sammy.env.traces = [trace('fcc/a'), trace('oboe/x')];
    sammy.env.failedRuns = [{ arm: 'sammy', neighbour: 'udp', index: 2, error: 'boom' }];
    const m = mergeBenches([sammy, controls]);
    expect(m.runs.map((r) => [r.arm, r.neighbour, r.index])).toEqual([
      ['unpaced', 'udp', 1],
      ['dashjs-rtp', 'udp', 1],
      ['unpaced', 'udp', 2],
      ['unpaced', 'tcp', 1],
      ['sammy', 'udp', 1],
      ['unpaced', 'udp', 3],
      ['sammy-neighbour-first', 'udp', 1],
    ]);
    expect(m.config.arms).toEqual(['unpaced', 'dashjs-rtp', 'sammy', 'sammy-neighbour-first']);
    expect(m.config.neighbours).toEqual(['udp', 'tcp']);
    expect(m.config.runs).toBe(3);
    expect(m.config.bufferTargets).toBeUndefined();
    expect(m.env.traces!.map((t) => t.id)).toEqual(['fcc/a', 'oboe/x']);
    expect(m.env.failedRuns).toHaveLength(1);
    expect(m.env.startedAt).toBe('2026-11-28T04:00:00.000Z');
    expect(m.env.wallSeconds).toBe(1200);
    expect(m.env.delayLine).toBeUndefined();
    expect(m.preface.join('\n')).toContain(
      '- `b`: started 2026-11-28T04:50:00.000Z, 3 runs (sammy, unpaced, sammy-neighbour-first × udp), load 3.0–3.0, 1 failed',
    );
    expect(m.preface.join('\n')).toContain('7 runs, judged together below');
  });

  it('splits by buffer target when the folders ran different ones', () => {
    const m = mergeBenches([
      folder('a', [['unpaced', 'udp', 1, 1]], { bufferSeconds: 240 }),
      folder('b', [['unpaced', 'udp', 1, 2]], { bufferSeconds: 30 }),
    ]);
    expect(m.config.bufferTargets).toEqual([30, 240]);
    // Same arm, neighbour and trace, but other buffer targets: two cells, each run #1.
    expect(m.runs.map((r) => [r.bufferSeconds, r.index])).toEqual([
      [240, 1],
      [30, 1],
    ]);
  });

  it('refuses folders that measured different things, naming the setting and each value', () => {
    const a = folder('a', [['unpaced', 'udp', 1, 1]]);
    expect(() => mergeBenches([a, folder('b', [['sammy', 'udp', 1, 2]], { durationSeconds: 60 })])).toThrow(
      /the folders differ in session length \(--duration\) \(a: 50; b: 60\)/,
    );
    expect(() => mergeBenches([a, folder('b', [['sammy', 'udp', 1, 2]], { udpShareOfTrace: undefined })])).toThrow(
      /UDP neighbour rate .*a: "share 0.125"; b: "5 Mbit\/s"/,
    );
    expect(() => mergeBenches([a, folder('b', [])])).toThrow(/b has no runs/);
    expect(() => mergeBenches([])).toThrow(/at least one results folder/);
  });
});

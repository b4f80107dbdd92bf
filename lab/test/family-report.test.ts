/**
 * The trace run's family report (issue 33), no root, no traces: run metrics made by hand → medians
 * and spread per family × buffer target × arm, Pensieve's QoE_lin, the session split in halves,
 * each arm against the others, and the targets met or missed by how much.
 */
import { describe, expect, it } from 'vitest';
import type { Arm } from '../src/config.js';
import { armPairs, checkFamilyTargets, familyCells, renderFamilySection, type FamilyTargetCheck } from '../src/family-report.js';
import { playedSegments, qoeLin, sessionHalves, type PageState } from '../src/measurements.js';
import { handRun } from './support/hand-run.js';

describe("Pensieve's linear QoE", () => {
  it('sums bitrate in Mbps, less 4.3 per rebuffered second and the bitrate changes between segments', () => {
    // 1 + 1 + 3 − 4.3 × 1 − |3 − 1| = −1.3
    expect(qoeLin([{ kbps: 1000 }, { kbps: 1000 }, { kbps: 3000 }], 1)).toBeCloseTo(-1.3, 9);
    // Down and up again costs both ways; a part-played last segment counts its share of its bitrate only.
    expect(qoeLin([{ kbps: 3300 }, { kbps: 750 }, { kbps: 3300, share: 0.5 }], 0)).toBeCloseTo(3.3 + 0.75 + 1.65 - 2.55 - 2.55, 9);
    expect(qoeLin([], 2)).toBeCloseTo(-8.6, 9);
  });

  it('takes the segments the viewer saw: media time stops while stalled, each at the quality rendered as it began', () => {
    const page = {
      startedAt: 1000,
      qualities: [
        { t: 900, kbps: 1000 },
        { t: 10_000, kbps: 3000 },
        { t: 60_000, kbps: 300 },
      ],
      // 2 s stalled from 5 s: the second segment (media 4–8 s) starts at 5 s, before the stall.
      stalls: [{ start: 6000, end: 8000 }],
    } as unknown as PageState;
    // Played: 19 s − 1 s − 2 s stalled = 16 s = 4 segments of 4 s, starting at wall 1, 5, 11 (9 + 2 stalled), 15 s.
    expect(playedSegments(page, 19_000, 4)).toEqual([
      { kbps: 1000, share: 1 },
      { kbps: 1000, share: 1 },
      { kbps: 3000, share: 1 },
      { kbps: 3000, share: 1 },
    ]);
    // One second more: a fifth segment, a quarter played; a stall still lasting at the end counts to the end.
    expect(playedSegments(page, 20_000, 4).at(-1)).toEqual({ kbps: 3000, share: 0.25 });
    const stalled = { ...page, stalls: [{ start: 6000 }] } as unknown as PageState;
    expect(playedSegments(stalled, 20_000, 4)).toEqual([
      { kbps: 1000, share: 1 },
      { kbps: 1000, share: 0.25 },
    ]);
    expect(playedSegments({ ...page, startedAt: undefined } as unknown as PageState, 20_000, 4)).toEqual([]);
  });
});

describe('the session in halves', () => {
  it('splits at the midpoint of [from, to] by time, leaving out what is outside', () => {
    const rows: Array<[number, number]> = [
      [-1, 0],
      [0, 1],
      [4, 2],
      [5, 3],
      [10, 4],
      [11, 5],
    ];
    const [first, second] = sessionHalves(rows, ([t]) => t, 0, 10);
    expect(first.map(([, v]) => v)).toEqual([1, 2]);
    expect(second.map(([, v]) => v)).toEqual([3, 4]);
  });
});

const run = handRun;

const ARMS: Arm[] = ['unpaced', 'sammy', 'pace-only', 'dashjs-rtp'];

describe('family cells', () => {
  it('takes medians and min–max over runs per family × buffer target × arm, viewer figures from every run, neighbour ones from their own', () => {
    const metrics = [
      run({ arm: 'sammy', buffer: 30, kbps: 1000, udp: [10, 30], halves: [14, 6], index: 1 }),
      run({ arm: 'sammy', buffer: 30, kbps: 1400, udp: [20, 50], halves: [24, 16], index: 2, trace: 'fcc/b', mbps: 6 }),
      run({ arm: 'sammy', buffer: 30, kbps: 1200, tcp: 2.5 }),
      run({ arm: 'sammy', buffer: 240, kbps: 3000, udp: [5, 9] }),
      run({ arm: 'unpaced', buffer: 30, kbps: 900, udp: [40, 80] }),
      run({ arm: 'unpaced', family: '5g', trace: '5g/x', kbps: 3300, udp: [1, 2], mbps: 60 }),
    ];
    const cells = familyCells(metrics, ARMS);
    expect(cells.map((c) => [c.family, c.bufferSeconds, c.arm, c.runs, c.udpRuns, c.tcpRuns])).toEqual([
      ['5g', undefined, 'unpaced', 1, 1, 0],
      ['fcc', 30, 'unpaced', 1, 1, 0],
      ['fcc', 30, 'sammy', 3, 2, 1],
      ['fcc', 240, 'sammy', 1, 1, 0],
    ]);
    const s30 = cells.find((c) => c.family === 'fcc' && c.bufferSeconds === 30 && c.arm === 'sammy')!;
    expect(s30.stats.meanBitrateKbps).toEqual({ n: 3, median: 1200, min: 1000, max: 1400 });
    expect(s30.stats.udpP50Ms).toEqual({ n: 2, median: 15, min: 10, max: 20 });
    expect(s30.stats.udpP95Ms.median).toBe(40);
    expect(s30.stats.udpP50FirstHalfMs.median).toBe(19);
    expect(s30.stats.udpP50SecondHalfMs.median).toBe(11);
    expect(s30.stats.tcpMbps).toEqual({ n: 1, median: 2.5, min: 2.5, max: 2.5 });
    expect(s30.traces).toEqual(['fcc/a', 'fcc/b']);
    // The family's mean: over its traces (each once), not its runs.
    expect(s30.familyMbps).toBe(5);
  });

  it('sets each arm against the ones before it: percent change of medians, differences for ratios, switches and QoE', () => {
    const cells = familyCells(
      [
        run({ arm: 'unpaced', kbps: 1000, ratio: 0, switches: 6, qoe: 20, udp: [100, 200] }),
        run({ arm: 'sammy', kbps: 1200, ratio: 0.02, switches: 3, qoe: 25.5, udp: [50, 220] }),
      ],
      ARMS,
    );
    const [pair, ...rest] = armPairs(cells);
    expect(rest).toEqual([]);
    expect(pair).toMatchObject({ family: 'fcc', arm: 'sammy', other: 'unpaced' });
    expect(pair!.deltas.meanBitrateKbps).toBeCloseTo(20, 9);
    expect(pair!.deltas.rebufferRatio).toBeCloseTo(2, 9);
    expect(pair!.deltas.qualitySwitches).toBe(-3);
    expect(pair!.deltas.qoeLin).toBeCloseTo(5.5, 9);
    expect(pair!.deltas.udpP50Ms).toBeCloseTo(-50, 9);
    expect(pair!.deltas.udpP95Ms).toBeCloseTo(10, 9);
  });
});

describe("issue 33's targets per family", () => {
  const find = (checks: FamilyTargetCheck[], id: string, family = 'fcc') => checks.find((c) => c.target.id === id && c.family === family)!;

  it('says met, or missed and by how much, against the arm the target names', () => {
    const metrics = [
      ...[1, 2, 3].map((index) => run({ arm: 'unpaced', index, kbps: 1000, switches: 4, startup: 400, thr: 4, udp: [100, 200] })),
      run({ arm: 'unpaced', kbps: 1000, switches: 4, startup: 400, thr: 4, tcp: 2 }),
      ...[1, 2, 3].map((index) => run({ arm: 'sammy', index, kbps: 970, switches: 5, startup: 460, thr: 3, udp: [60, 250] })),
      run({ arm: 'sammy', kbps: 970, switches: 5, startup: 460, thr: 3, tcp: 2.2 }),
      ...[1, 2, 3].map((index) => run({ arm: 'dashjs-rtp', index, kbps: 800, udp: [50, 200] })),
      ...[1, 2, 3].map((index) => run({ arm: 'pace-only', index, kbps: 1000, switches: 4, startup: 430, ratio: index === 3 ? 0.03 : 0 })),
    ];
    const checks = checkFamilyTargets(familyCells(metrics, ARMS), 3300);
    expect(find(checks, 'sammy-bitrate')).toMatchObject({ value: 970, reference: 1000, met: false, verdict: 'missed by 1.0 pp' });
    expect(find(checks, 'sammy-switches')).toMatchObject({ met: false, verdict: 'missed by +1.00 per run' });
    expect(find(checks, 'sammy-startup')).toMatchObject({ met: false, verdict: 'missed by 5.0 pp' });
    expect(find(checks, 'sammy-rebuffer')).toMatchObject({ met: true, verdict: 'met' });
    // Against dash.js's rtp, +10 % allowed: p50 60 vs 50 is +20 % (missed by 10 pp), p95 250 vs 200 +25 %.
    expect(find(checks, 'sammy-udp-p50')).toMatchObject({ value: 60, reference: 50, met: false, verdict: 'missed by 10.0 pp' });
    expect(find(checks, 'sammy-udp-p95')).toMatchObject({ met: false, verdict: 'missed by 15.0 pp' });
    expect(find(checks, 'sammy-tcp')).toMatchObject({ met: true });
    // A family at 4 Mbit/s (1.2 × top) has no chunk-throughput target.
    expect(find(checks, 'sammy-chunk').met).toBeUndefined();
    expect(find(checks, 'sammy-chunk').verdict).toMatch(/^no target: family mean 4.00 Mbit\/s = 1.2 × top/);
    // Pace-only: one stall in three runs is a median of 0, but the mean per run is what counts.
    expect(find(checks, 'pace-only-rebuffer')).toMatchObject({ met: false, verdict: 'missed by +1.00 pp; worse on fcc/a +1.00 pp' });
    expect(find(checks, 'pace-only-bitrate')).toMatchObject({ met: true });
    expect(find(checks, 'pace-only-startup')).toMatchObject({ met: true, change: 7.5 });
  });

  it('fails the rebuffer target on a trace that stalls more even when the family mean does not, and judges chunk throughput on fast families', () => {
    const metrics = [
      run({ arm: 'unpaced', family: '5g', trace: '5g/x', mbps: 50, ratio: 0.04, thr: 40 }),
      run({ arm: 'unpaced', family: '5g', trace: '5g/y', mbps: 70, ratio: 0, thr: 40 }),
      run({ arm: 'sammy', family: '5g', trace: '5g/x', mbps: 50, ratio: 0, thr: 20 }),
      run({ arm: 'sammy', family: '5g', trace: '5g/y', mbps: 70, ratio: 0.01, thr: 12 }),
    ];
    const checks = checkFamilyTargets(familyCells(metrics, ARMS), 3300);
    expect(find(checks, 'sammy-rebuffer', '5g')).toMatchObject({ met: false, verdict: 'missed on 5g/y +1.00 pp' });
    // Median 16 against 40: −60 %, just met.
    expect(find(checks, 'sammy-chunk', '5g')).toMatchObject({ change: -60, met: true });
    // No dash.js rtp runs: not judged.
    expect(find(checks, 'sammy-udp-p50', '5g')).toMatchObject({ verdict: 'n/a: no dashjs-rtp runs' });
    expect(find(checks, 'sammy-udp-p50', '5g').met).toBeUndefined();
  });

  it('renders the targets per family and buffer target, and the per-family tables, leaving out arms not run', () => {
    const metrics = [30, 240].flatMap((buffer) => [
      run({ arm: 'unpaced', buffer, kbps: 1000, udp: [100, 200], qoe: 10 }),
      run({ arm: 'sammy', buffer, kbps: buffer === 30 ? 1100 : 900, udp: [50, 90], qoe: 12 }),
    ]);
    const md = renderFamilySection({ metrics, arms: ['unpaced', 'sammy'], topVideoKbps: 3300 }).join('\n');
    expect(md).toContain('| family | arm | target | buffer 30 s | buffer 240 s |');
    expect(md).toContain(
      '| fcc | sammy | mean bitrate ≥ 98 % of unpaced | 1100 vs 1000 (+10.0%): **met** | 900 vs 1000 (−10.0%): missed by 8.0 pp |'.replace(
        '−',
        '-',
      ),
    );
    expect(md).toContain(
      'Not run here, so not judged: sammy against dashjs-rtp, TCP neighbour throughput (no tcp neighbour), pace-only against unpaced.',
    );
    expect(md).not.toContain('| fcc | sammy | TCP neighbour throughput');
    expect(md).not.toMatch(/\| fcc \| pace-only \|/);
    expect(md).toContain('#### fcc');
    expect(md).toMatch(/\| 240 s \| Sammy \(defaults = PRESETS.bufferAware\) \| 1 \| 900 \|/);
    expect(md).toContain('| 30 s | sammy | unpaced | +10.0% |');
  });
});

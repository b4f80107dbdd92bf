/**
 * The rate sweep's aggregation (no root, no browser): runs.csv rows made by hand → per-arm medians
 * and spread, changes against unpaced, issue 17's target checks, and the report built from them.
 */
import { describe, expect, it } from 'vitest';
import {
  aggregatePoint,
  armLabel,
  checkTargets,
  parseCsv,
  renderSweepMarkdown,
  runsFromCsv,
  targetsFor,
  type SweepPoint,
  type SweepRunRow,
} from '../src/sweep-report.js';

/** The bench's runs.csv header (metricsCsv), strings quoted as it writes them. */
const HEAD =
  'arm,neighbour,run,startup_ms,rebuffers,rebuffer_s,mean_bitrate_kbps,chunk_throughput_mbps,video_chunks,video_rtt_ms,video_rtt_source,video_min_rtt_ms,' +
  'median_pace_kbps,queue_delay_p50_ms,queue_delay_p95_ms,bottleneck_drops,neighbour_metric,neighbour_unit,neighbour_p50,neighbour_p95,neighbour_mean,' +
  'neighbour_samples,errors,media_protocols,trace,family,trace_mbps,quality_switches,rebuffer_ratio';

interface R {
  arm: string;
  run: number;
  udp?: number;
  kbps?: number;
  thr?: number;
  startup?: number;
  rebuf?: number;
  ratio?: number;
  switches?: number;
  queue?: number;
  neighbour?: string;
}

/** One runs.csv line as the bench writes it (empty cells for absent values). */
function line(r: R): string {
  const v = (x: number | undefined) => (x === undefined ? '' : String(x));
  const neighbour = r.neighbour ?? 'udp';
  return [
    `"${r.arm}"`,
    `"${neighbour}"`,
    r.run,
    v(r.startup),
    v(r.rebuf ?? 0),
    0,
    v(r.kbps),
    v(r.thr),
    20,
    8.1,
    '"records"',
    5.2,
    10700,
    v(r.queue),
    20,
    0,
    `"UDP one-way delay"`,
    '"ms"',
    v(r.udp),
    12,
    9,
    1500,
    0,
    '"http/1.1 × 40, h2 × 1"',
    '',
    '',
    '',
    v(r.switches ?? 0),
    v(r.ratio ?? 0),
  ].join(',');
}

const csv = (rows: R[]) => [HEAD, ...rows.map(line)].join('\n') + '\n';

function point(multiple: number, rows: R[]): SweepPoint {
  const rateMbps = (multiple * 3300) / 1000;
  return {
    multiple,
    rateMbps,
    udpMbps: rateMbps / 8,
    rows: runsFromCsv(csv(rows)),
    failedRuns: 0,
    folder: `x${multiple}/2026-11-23T19-00-00-000`,
  };
}

describe('runs.csv', () => {
  it('parses quoted fields with commas, doubled quotes and CRLF', () => {
    expect(parseCsv('a,"b, c","say ""hi"""\r\n1,,3\r\n')).toEqual([
      ['a', 'b, c', 'say "hi"'],
      ['1', '', '3'],
    ]);
  });

  it('reads the columns by name, leaves empty cells out, and takes the UDP p50 from UDP runs only', () => {
    const rows = runsFromCsv(
      csv([
        { arm: 'unpaced', run: 1, udp: 10.5, kbps: 3267, thr: 31.1, startup: 291, queue: 12.3, switches: 2, ratio: 0.01, rebuf: 1 },
        { arm: 'sammy', run: 1, udp: 2.9, neighbour: 'tcp', startup: undefined },
      ]),
    );
    expect(rows[0]).toEqual<SweepRunRow>({
      arm: 'unpaced',
      neighbour: 'udp',
      run: 1,
      startupMs: 291,
      rebuffers: 1,
      rebufferRatio: 0.01,
      meanBitrateKbps: 3267,
      chunkThroughputMbps: 31.1,
      qualitySwitches: 2,
      queueDelayP50Ms: 12.3,
      udpP50Ms: 10.5,
    });
    expect(rows[1]?.udpP50Ms).toBeUndefined();
    expect(rows[1]?.startupMs).toBeUndefined();
    expect(rows[1]?.meanBitrateKbps).toBeUndefined();
  });

  it('does not depend on the column order', () => {
    const rows = runsFromCsv('neighbour_p50,run,neighbour,arm,mean_bitrate_kbps\n4.5,2,"udp","sammy",3214\n');
    expect(rows).toEqual([expect.objectContaining({ arm: 'sammy', run: 2, udpP50Ms: 4.5, meanBitrateKbps: 3214 })]);
  });

  it('refuses a file without the arm, neighbour or run column', () => {
    expect(() => runsFromCsv('arm,neighbour\n"unpaced","udp"\n')).toThrow(/"run" column/);
  });
});

describe('aggregatePoint', () => {
  const p = point(2, [
    { arm: 'unpaced', run: 1, udp: 10, kbps: 3200, thr: 30 },
    { arm: 'unpaced', run: 2, udp: 14, kbps: 3300, thr: 34 },
    { arm: 'unpaced', run: 3, udp: 12, kbps: 3250, thr: 32 },
    { arm: 'sammy', run: 1, udp: 3, kbps: 3100, thr: 10 },
    { arm: 'sammy', run: 2, udp: 5, kbps: 3300, thr: 12 },
  ]);
  const table = aggregatePoint(p, ['unpaced', 'sammy', 'dashjs-rtp']);

  it('gives each arm its run count, median and min–max (even counts: the mean of the middle two)', () => {
    const [u, s, rtp] = table.rows;
    expect(u?.runs).toBe(3);
    expect(u?.stats.udpP50Ms).toEqual({ n: 3, median: 12, min: 10, max: 14 });
    expect(u?.stats.meanBitrateKbps.median).toBe(3250);
    expect(s?.runs).toBe(2);
    expect(s?.stats.udpP50Ms).toEqual({ n: 2, median: 4, min: 3, max: 5 });
    expect(s?.stats.chunkThroughputMbps.median).toBe(11);
    // An arm asked for that has no runs still gets its row.
    expect(rtp?.runs).toBe(0);
    expect(rtp?.stats.udpP50Ms.median).toBeUndefined();
  });

  it("compares each arm's median with unpaced's, in percent", () => {
    const [u, s, rtp] = table.rows;
    expect(u?.change).toEqual({});
    expect(s?.change.udpP50Ms).toBeCloseTo(((4 - 12) / 12) * 100, 10);
    expect(s?.change.meanBitrateKbps).toBeCloseTo(((3200 - 3250) / 3250) * 100, 10);
    expect(s?.change.chunkThroughputMbps).toBeCloseTo(((11 - 32) / 32) * 100, 10);
    expect(rtp?.change).toEqual({});
  });
});

describe('issue 17 targets', () => {
  it('apply at 1.5–3 × (UDP delay, bitrate, rebuffers) and at 12 × (chunk throughput, bitrate, startup), not at 6 ×', () => {
    expect(targetsFor(1.5).map((t) => t.id)).toEqual(['udp-delay', 'bitrate', 'rebuffers']);
    expect(targetsFor(3).map((t) => t.id)).toEqual(['udp-delay', 'bitrate', 'rebuffers']);
    expect(targetsFor(6)).toEqual([]);
    expect(targetsFor(12).map((t) => t.id)).toEqual(['chunk-throughput', 'bitrate-top', 'startup']);
  });

  const arm = 'sammy';
  const low = point(2, [
    { arm: 'unpaced', run: 1, udp: 10, kbps: 3000, rebuf: 0 },
    { arm: 'unpaced', run: 2, udp: 20, kbps: 3000, rebuf: 1 },
    { arm, run: 1, udp: 4, kbps: 2955, rebuf: 0 }, // udp −60%, bitrate −1.5%
    { arm, run: 2, udp: 8, kbps: 2955, rebuf: 1 },
  ]);
  const lowMissed = point(3, [
    { arm: 'unpaced', run: 1, udp: 10, kbps: 3000, rebuf: 0 },
    { arm, run: 1, udp: 6, kbps: 2910, rebuf: 2 }, // udp −40%, bitrate −3%, 2 more rebuffers
  ]);
  const top = point(12, [
    { arm: 'unpaced', run: 1, thr: 30, kbps: 3300, startup: 300 },
    { arm: 'unpaced', run: 2, thr: 34, kbps: 3300, startup: 320 },
    { arm, run: 1, thr: 8, kbps: 3366, startup: 320 }, // chunk thr. −75% (median 8.5 vs 32), bitrate +2%, startup +3.2%
    { arm, run: 2, thr: 9, kbps: 3366, startup: 340 },
  ]);
  const checks = checkTargets([low, lowMissed, point(6, [{ arm: 'unpaced', run: 1, udp: 1 }]), top], arm);
  const find = (multiple: number, id: string) => checks.find((c) => c.multiple === multiple && c.target.id === id)!;

  it('meets them where the changes are within the limits, with medians and paired changes', () => {
    const udp = find(2, 'udp-delay');
    expect(udp.unpaced).toBe(15);
    expect(udp.judged).toBe(6);
    expect(udp.changePercent).toBeCloseTo(-60, 10);
    expect(udp.paired).toEqual({ n: 2, min: -60, max: -60 });
    expect(udp.met).toBe(true);
    expect(udp.verdict).toBe('met');
    expect(find(2, 'bitrate').changePercent).toBeCloseTo(-1.5, 10);
    expect(find(2, 'bitrate').met).toBe(true);
    // Equal rebuffers per run are "not higher".
    expect(find(2, 'rebuffers')).toMatchObject({ unpaced: 0.5, judged: 0.5, met: true });
    expect(find(12, 'chunk-throughput').changePercent).toBeCloseTo(((8.5 - 32) / 32) * 100, 10);
    expect(find(12, 'chunk-throughput').met).toBe(true);
  });

  it('says by how much a missed target is missed', () => {
    expect(find(3, 'udp-delay')).toMatchObject({ met: false, verdict: 'missed by 10.0 pp' });
    expect(find(3, 'bitrate')).toMatchObject({ met: false, verdict: 'missed by 1.0 pp' });
    expect(find(3, 'rebuffers')).toMatchObject({ unpaced: 0, judged: 2, met: false, verdict: 'missed: +2.00 per run' });
    // "Within 1%" holds both ways: +2% misses by 1 pp.
    expect(find(12, 'bitrate-top')).toMatchObject({ met: false, verdict: 'missed by 1.0 pp' });
    const startup = find(12, 'startup');
    expect(startup.changePercent).toBeCloseTo(((330 - 310) / 310) * 100, 10);
    expect(startup.met).toBe(false);
    // Run 1: 300 → 320 ms (+6.7%); run 2: 320 → 340 ms (+6.25%).
    expect(startup.paired).toEqual({
      n: 2,
      min: expect.closeTo(((340 - 320) / 320) * 100, 10),
      max: expect.closeTo(((320 - 300) / 300) * 100, 10),
    });
  });

  it('checks nothing at 6 ×, and says n/a when the judged arm has no runs', () => {
    expect(checks.filter((c) => c.multiple === 6)).toEqual([]);
    const none = checkTargets([point(2, [{ arm: 'unpaced', run: 1, udp: 10, kbps: 3000 }])], arm);
    expect(none).toHaveLength(3);
    for (const c of none) {
      expect(c.met).toBeUndefined();
      expect(c.verdict).toMatch(/^n\/a: no sammy runs/);
    }
  });

  it('does not judge a change against an unpaced median of 0', () => {
    const [udp] = checkTargets(
      [
        point(1.5, [
          { arm: 'unpaced', run: 1, udp: 0 },
          { arm, run: 1, udp: 1 },
        ]),
      ],
      arm,
    );
    expect(udp?.verdict).toBe('n/a: unpaced median is 0');
    expect(udp?.met).toBeUndefined();
  });
});

describe('renderSweepMarkdown', () => {
  const arm = 'sammy';
  const points = [
    point(2, [
      { arm: 'unpaced', run: 1, udp: 10, kbps: 3000, thr: 6, startup: 300, queue: 100 },
      { arm, run: 1, udp: 4, kbps: 2955, thr: 5, startup: 310, queue: 20 },
    ]),
    point(12, [
      { arm: 'unpaced', run: 1, thr: 30, kbps: 3300, startup: 300 },
      { arm, run: 1, thr: 20, kbps: 3300, startup: 290 },
    ]),
  ];
  const md = renderSweepMarkdown({
    startedAt: '2026-11-23T19:00:00.000Z',
    topVideoKbps: 3300,
    topSource: '.cache/media/lab/manifest.mpd',
    arms: ['unpaced', arm],
    judgedArm: arm,
    runs: 1,
    durationSeconds: 20,
    seed: 1,
    queueBytes: 100_000,
    passthrough: ['--runs', '1'],
    points,
    plots: ['sweep-udp-p50'],
  });

  it('has a table per multiple with runs, spread cells and changes, and links each invocation', () => {
    expect(md).toContain('## 2 × top: 6.6 Mbit/s, UDP neighbour 0.825 Mbit/s');
    expect(md).toContain('## 12 × top: 39.6 Mbit/s');
    expect(md).toContain('[x2/2026-11-23T19-00-00-000](x2/2026-11-23T19-00-00-000/report.md)');
    // Buffer-aware row at 2 ×: 1 run, UDP 4.00 (−60.0%), bitrate 2955 (−1.5%), chunk 5.0 (−16.7%).
    expect(md).toContain(`| ${armLabel(arm)} | 1 | 4.00 | -60.0% | 2955 | -1.5% |`);
    expect(md).toContain('| 5.0 | -16.7% | 310 | 20.0 |');
    // A full 100 000 B queue at 6.6 Mbit/s.
    expect(md).toContain('| 2 × | 6.6 | 0.825 | 121.2 |');
    expect(md).toContain('![sweep-udp-p50](plots/sweep-udp-p50.png)');
  });

  it('lists the target checks with their verdicts', () => {
    expect(md).toContain('5 of 6 met');
    expect(md).toMatch(
      /\| 12 × \(39\.6 Mbit\/s\) \| chunk throughput ≥ 70% lower \| 30\.0 \| 20\.0 \| -33\.3% \| 1: -33\.3% \| missed by 36\.7 pp \|/,
    );
    expect(md).toMatch(
      /\| 2 × \(6\.6 Mbit\/s\) \| UDP one-way delay p50 ≥ 50% lower \| 10\.00 \| 4\.00 \| -60\.0% \| [^|]+ \| \*\*met\*\* \|/,
    );
  });

  it('says the targets were not checked when the judged arm did not run', () => {
    const without = renderSweepMarkdown({
      startedAt: 'x',
      topVideoKbps: 3300,
      topSource: 'm',
      arms: ['unpaced', 'sammy-paper'],
      judgedArm: arm,
      runs: 1,
      durationSeconds: 20,
      seed: 1,
      queueBytes: 100_000,
      passthrough: [],
      points: points.map((p) => ({ ...p, rows: p.rows.filter((r) => r.arm !== arm) })),
      plots: [],
    });
    expect(without).toContain('Not checked: the sweep ran without sammy');
    expect(without).not.toContain('missed by');
  });
});

describe('sweepPlotRows', () => {
  it('gives each arm a median with min–max per multiple and a dot per run, arms apart on x around the multiple', async () => {
    const { sweepPlotRows } = await import('../src/sweep-plots.js');
    const points = [
      point(2, [
        { arm: 'unpaced', run: 1, udp: 10 },
        { arm: 'unpaced', run: 2, udp: 30 },
        { arm: 'unpaced', run: 3, udp: 20 },
        { arm: 'sammy', run: 1, udp: 4 },
        { arm: 'sammy', run: 2, neighbour: 'tcp' }, // no UDP p50: no dot
      ]),
    ];
    const rows = sweepPlotRows(points, ['unpaced', 'sammy'], 'udpP50Ms');
    expect(rows.runs).toHaveLength(4);
    const [u, s] = rows.medians;
    expect(u).toMatchObject({ multiple: 2, median: 20, min: 10, max: 30 });
    expect(s).toMatchObject({ multiple: 2, median: 4, min: 4, max: 4 });
    expect(u!.x).toBeLessThan(2);
    expect(s!.x).toBeGreaterThan(2);
    expect(u!.x * s!.x).toBeCloseTo(4, 10);
  });
});

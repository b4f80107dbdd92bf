/**
 * Plots made with Vega-Lite and rendered by Vega in Node to SVG, then to PNG by resvg (a prebuilt
 * Rust renderer, no browser, no node-canvas): the time series of one representative run per arm,
 * and each neighbour's metric per arm.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import * as vl from 'vega-lite';
import { ARM_LABELS, NEIGHBOUR_LABELS, type Arm, type Neighbour } from './config.js';
import { bufferTargetsIn, bufferText } from './family-report.js';
import { linkAchieved, neighbourSamples, queueDelayMs, sameRun, throughputSeries, type RawRun, type RunMetrics } from './measurements.js';
import { median, quantile } from './stats.js';
import { latencySeries } from './game/metrics.js';
import { netDelaySeries } from './game/net-delay.js';

type Row = Record<string, string | number>;

/** Writes `<name>.svg` and `<name>.png` (2× scale, white background: it is read outside dark themes too). */
/** Renders a Vega-Lite spec to dir/name.svg and, at 2× on white, dir/name.png. */
export async function render(spec: vl.TopLevelSpec, dir: string, name: string): Promise<void> {
  const compiled = vl.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  writeFileSync(join(dir, `${name}.svg`), svg);
  const png = new Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'zoom', value: 2 },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
  })
    .render()
    .asPng();
  writeFileSync(join(dir, `${name}.png`), png);
}

/** Symlog's own ticks crowd near the top and leave 0–10 bare: 0 and 1-2-5 ticks up to the first at or above `top`. */
export function symlogTicks(top: number): number[] {
  return [0, ...[1, 10, 100, 1000].flatMap((d) => [d, 2 * d, 5 * d])].filter((t, i, all) => t <= top || all[i - 1]! < top);
}

/**
 * One run per arm for the time series, all with the same neighbour so the panels compare: the
 * video alone if it ran, else next to the UDP flow (which never fills the queue by itself), else
 * the first neighbour every arm ran with. Within it, the run whose chunk throughput is closest to
 * the arm's median there.
 */
export function representativeRuns(runs: RawRun[], metrics: RunMetrics[], arms: Arm[]): Map<Arm, RawRun> {
  const out = new Map<Arm, RawRun>();
  const ranByAll = (n: Neighbour) =>
    arms.every((arm) => metrics.some((m) => m.arm === arm && m.neighbour === n && m.chunkThroughputMbps !== undefined));
  const order: Neighbour[] = ['none', 'udp', ...new Set(metrics.map((m) => m.neighbour))];
  const neighbour = order.find(ranByAll);
  if (neighbour === undefined) return out;
  for (const arm of arms) {
    const candidates = metrics.filter((m) => m.arm === arm && m.neighbour === neighbour && m.chunkThroughputMbps !== undefined);
    const mid = median(candidates.map((m) => m.chunkThroughputMbps as number));
    if (mid === undefined) continue;
    const best = candidates.reduce((a, b) =>
      Math.abs((b.chunkThroughputMbps as number) - mid) < Math.abs((a.chunkThroughputMbps as number) - mid) ? b : a,
    );
    const run = runs.find((r) => sameRun(r, best));
    if (run) out.set(arm, run);
  }
  return out;
}

/** The pace the server applied to each video segment (0: none), Mbit/s, at the segment's request, s since the play request. */
function paceSeries(run: RawRun): Array<{ t: number; mbps: number }> {
  const t0 = run.page.playRequestedAt;
  return run.page.chunks
    .filter((c) => c.mediaType === 'video')
    .sort((a, b) => a.start - b.start)
    .map((c) => ({ t: (c.start - t0) / 1000, mbps: (c.server.appliedPaceKbps ?? 0) / 1000 }));
}

function timeSeriesRows(run: RawRun): Row[] {
  const t0 = run.page.playRequestedAt;
  const rows: Row[] = [];
  for (const p of throughputSeries(run.page)) rows.push({ t: p.t, value: p.mbps, series: 'session throughput (Mbps)' });
  for (const p of paceSeries(run)) rows.push({ t: p.t, value: p.mbps, series: 'pace applied (Mbps)' });
  // On the home link (as with traces) the queue is the delay line's link: the wait its backlog means.
  const queue = run.homeQueue
    ? (run.link ?? []).map((s) => ({ t: s.t, ms: s.waitMs }))
    : run.queue.map((q) => ({ t: q.t, ms: queueDelayMs(q, run.rateMbps) }));
  for (const q of queue) {
    const t = (q.t - t0) / 1000;
    if (t >= 0 && q.t <= run.endedAt) rows.push({ t, value: q.ms, series: 'queue delay (ms)' });
  }
  if (run.page.startedAt !== undefined) rows.push({ t: (run.page.startedAt - t0) / 1000, value: 0, series: 'playback starts' });
  return rows;
}

export async function plotTimeSeries(reps: Map<Arm, RawRun>, dir: string): Promise<string> {
  const charts: vl.TopLevelSpec[] = [];
  const color = {
    field: 'series',
    type: 'nominal' as const,
    title: null,
    scale: { domain: ['session throughput (Mbps)', 'pace applied (Mbps)', 'queue delay (ms)'], range: ['#1f77b4', '#2ca02c', '#d62728'] },
  };
  for (const [arm, run] of reps) {
    const rows = timeSeriesRows(run);
    charts.push({
      title: `${ARM_LABELS[arm]} (run ${run.index}, neighbour ${run.neighbour})`,
      width: 720,
      height: 160,
      data: { values: rows },
      layer: [
        {
          transform: [{ filter: "datum.series === 'session throughput (Mbps)' || datum.series === 'pace applied (Mbps)'" }],
          mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.5 },
          encoding: {
            x: { field: 't', type: 'quantitative', title: 's since play request' },
            y: { field: 'value', type: 'quantitative', title: 'Mbps', scale: { domain: [0, 45] } },
            color,
          },
        },
        {
          transform: [{ filter: "datum.series === 'queue delay (ms)'" }],
          mark: { type: 'line', strokeWidth: 1, opacity: 0.8 },
          encoding: {
            x: { field: 't', type: 'quantitative' },
            y: { field: 'value', type: 'quantitative', title: 'queue delay (ms)', axis: { orient: 'right' }, scale: { domain: [0, 25] } },
            color,
          },
        },
        {
          transform: [{ filter: "datum.series === 'playback starts'" }],
          mark: { type: 'rule', strokeDash: [4, 4], color: 'gray' },
          encoding: { x: { field: 't', type: 'quantitative' } },
        },
      ],
      resolve: { scale: { y: 'independent' } },
    } as unknown as vl.TopLevelSpec);
  }
  await render({ vconcat: charts, config: { legend: { orient: 'top', labelLimit: 0 } } } as unknown as vl.TopLevelSpec, dir, 'timeseries');
  return 'timeseries';
}

const UNITS: Record<Neighbour, string> = {
  udp: 'one-way delay (ms)',
  http: 'response time (ms)',
  tcp: 'per-second throughput (Mbps)',
  video: 'startup delay (ms)',
  game: 'game frame latency (ms)',
  none: '',
};

/**
 * The game neighbour over time (issue 34), one panel per arm on one time axis from the play request:
 * game frame latency (p95 and p50 of each 500 ms) against the video's download rate (session
 * throughput), for the run of each arm whose game p95 is the arm's median.
 */
const NET_SERIES = 'game network delay p95 / s (ms, router)';

export async function plotGameTimeline(runs: RawRun[], metrics: RunMetrics[], arms: Arm[], dir: string): Promise<string | undefined> {
  const charts: unknown[] = [];
  // One scale per quantity across the panels, so the arms compare at a glance.
  let yMax = 0;
  let vMax = 0;
  const panels: Array<{ arm: Arm; rows: Row[]; index: number }> = [];
  for (const arm of arms) {
    const ms = metrics.filter((m) => m.arm === arm && m.neighbour === 'game' && m.game?.latencyP95Ms !== undefined);
    const mid = median(ms.map((m) => m.game!.latencyP95Ms!));
    if (mid === undefined) continue;
    const best = ms.reduce((a, b) => (Math.abs(b.game!.latencyP95Ms! - mid) < Math.abs(a.game!.latencyP95Ms! - mid) ? b : a));
    const run = runs.find((r) => sameRun(r, best));
    if (!run?.game) continue;
    const t0 = run.page.playRequestedAt;
    const rows: Row[] = [];
    for (const b of latencySeries(run.game, t0)) {
      rows.push({ t: b.t, value: b.p95Ms, series: 'game latency p95 / 500 ms (ms)' });
      rows.push({ t: b.t, value: b.p50Ms, series: 'game latency p50 / 500 ms (ms)' });
      yMax = Math.max(yMax, b.p95Ms);
    }
    // The game's delay in the network (router's log), on the same axis as glass to glass.
    if (run.gameNet) {
      for (const b of netDelaySeries(run.gameNet, t0)) {
        rows.push({ t: b.t, value: b.p95Ms, series: NET_SERIES });
        yMax = Math.max(yMax, b.p95Ms);
      }
    }
    for (const p of throughputSeries(run.page)) {
      rows.push({ t: p.t, value: p.mbps, series: 'video download rate (Mbps)' });
      vMax = Math.max(vMax, p.mbps);
    }
    panels.push({ arm, rows: rows.filter((r) => (r.t as number) <= (run.endedAt - t0) / 1000), index: run.index });
  }
  if (panels.length === 0) return undefined;
  for (const { arm, rows, index } of panels) {
    charts.push({
      title: `${ARM_LABELS[arm]} (run ${index}); video play request at t = 0, the game alone before it`,
      width: 760,
      height: 200,
      data: { values: rows },
      layer: [
        {
          transform: [{ filter: "datum.series !== 'video download rate (Mbps)'" }],
          mark: { type: 'line', strokeWidth: 1.2 },
          encoding: {
            x: { field: 't', type: 'quantitative', title: 's from the play request' },
            y: {
              field: 'value',
              type: 'quantitative',
              title: 'game frame latency (ms)',
              scale: { domain: [0, Math.ceil(yMax / 10) * 10 || 100] },
            },
            color: {
              field: 'series',
              type: 'nominal',
              title: null,
              scale: {
                range: ['#d62728', '#ff9896', '#2ca02c', '#1f77b4'],
                domain: ['game latency p95 / 500 ms (ms)', 'game latency p50 / 500 ms (ms)', NET_SERIES, 'video download rate (Mbps)'],
              },
            },
          },
        },
        {
          transform: [{ filter: "datum.series === 'video download rate (Mbps)'" }],
          mark: { type: 'area', opacity: 0.25, interpolate: 'step-after' },
          encoding: {
            x: { field: 't', type: 'quantitative' },
            y: {
              field: 'value',
              type: 'quantitative',
              title: 'video download rate (Mbps)',
              axis: { orient: 'right' },
              scale: { domain: [0, Math.ceil(vMax / 5) * 5 || 5] },
            },
            color: { field: 'series', type: 'nominal' },
          },
        },
      ],
      resolve: { scale: { y: 'independent' } },
    });
  }
  await render(
    { vconcat: charts, config: { legend: { orient: 'top', labelLimit: 0 } } } as unknown as vl.TopLevelSpec,
    dir,
    'game-timeline',
  );
  return 'game-timeline';
}

export async function plotNeighbours(runs: RawRun[], arms: Arm[], dir: string): Promise<string[]> {
  const files: string[] = [];
  const neighbours = [...new Set(runs.map((r) => r.neighbour))].filter((n) => n !== 'none');
  for (const n of neighbours) {
    const cdf: Row[] = [];
    const points: Row[] = [];
    for (const arm of arms) {
      const armRuns = runs.filter((r) => r.arm === arm && r.neighbour === n).map((r) => ({ r, s: neighbourSamples(r) }));
      // The CDF pools the samples of all the arm's runs.
      const samples = armRuns.flatMap(({ s }) => s);
      if (samples.length === 0) continue;
      for (let i = 0; i <= 100; i++) {
        const v = quantile(samples, i / 100);
        if (v !== undefined) cdf.push({ arm: ARM_LABELS[arm], value: v, p: i / 100 });
      }
      for (const { r, s } of armRuns) {
        const v = n === 'tcp' ? r.tcp?.meanMbps : quantile(s, 0.5);
        if (v !== undefined) points.push({ arm: ARM_LABELS[arm], value: v, run: r.index });
      }
    }
    if (cdf.length === 0) continue;
    const name = `neighbour-${n}`;
    const perRun =
      n === 'tcp' ? 'mean throughput per run (Mbps)' : n === 'video' ? 'startup delay per run (ms)' : `median per run: ${UNITS[n]}`;
    await render(
      {
        title: NEIGHBOUR_LABELS[n],
        hconcat: [
          {
            width: 420,
            height: 260,
            data: { values: cdf },
            mark: { type: 'line', interpolate: 'step-after' },
            encoding: {
              x: { field: 'value', type: 'quantitative', title: UNITS[n] },
              y: { field: 'p', type: 'quantitative', title: 'CDF (all samples of all runs)' },
              color: { field: 'arm', type: 'nominal', title: null },
            },
          },
          {
            width: 260,
            height: 260,
            data: { values: points },
            layer: [
              {
                mark: { type: 'bar', opacity: 0.35 },
                encoding: {
                  x: { field: 'arm', type: 'nominal', title: null, axis: { labelAngle: -30, labelLimit: 0 } },
                  y: { aggregate: 'median', field: 'value', type: 'quantitative', title: perRun },
                  color: { field: 'arm', type: 'nominal' },
                },
              },
              {
                mark: { type: 'point', filled: true },
                encoding: {
                  x: { field: 'arm', type: 'nominal' },
                  y: { field: 'value', type: 'quantitative' },
                  color: { field: 'arm', type: 'nominal' },
                },
              },
            ],
          },
        ],
        config: { legend: { orient: 'bottom', columns: 2, labelLimit: 0 } },
      } as unknown as vl.TopLevelSpec,
      dir,
      name,
    );
    files.push(name);
  }
  return files;
}

/** The trace of a family whose session mean is closest to the family's median: its runs make the time series. */
export function representativeTrace(metrics: RunMetrics[], family: string): string | undefined {
  const traces = [
    ...new Map(metrics.filter((m) => m.family === family && m.trace).map((m) => [m.trace as string, m.traceMbps ?? 0])).entries(),
  ];
  if (traces.length === 0) return undefined;
  const mid = median(traces.map(([, v]) => v)) ?? 0;
  return traces.reduce((a, b) => (Math.abs(b[1] - mid) < Math.abs(a[1] - mid) ? b : a))[0];
}

const TRACE_SERIES = ['trace capacity (Mbps)', 'link released (Mbps)', 'video bitrate (Mbps)', 'pace applied (Mbps)', 'buffer (s)'];

function traceRows(run: RawRun): Row[] {
  const t0 = run.page.playRequestedAt;
  const end = (run.endedAt - t0) / 1000;
  const rows: Row[] = [];
  const achieved = linkAchieved(run);
  for (const b of achieved?.perSecond ?? []) {
    const t = (run.trace!.startedAt - t0) / 1000 + b.t;
    rows.push({ t, value: b.traceMbps, series: TRACE_SERIES[0]! }, { t, value: b.releasedMbps, series: TRACE_SERIES[1]! });
  }
  const qs = run.page.qualities.filter((q) => q.t <= run.endedAt).sort((a, b) => a.t - b.t);
  for (const q of qs) rows.push({ t: Math.max(0, (q.t - t0) / 1000), value: q.kbps / 1000, series: TRACE_SERIES[2]! });
  if (qs.length) rows.push({ t: end, value: qs.at(-1)!.kbps / 1000, series: TRACE_SERIES[2]! });
  // Unpaced segments have no pace to draw.
  for (const p of paceSeries(run)) if (p.mbps > 0) rows.push({ t: p.t, value: p.mbps, series: TRACE_SERIES[3]! });
  for (const b of run.page.buffer ?? [])
    if (b.t <= run.endedAt) rows.push({ t: (b.t - t0) / 1000, value: b.seconds, series: TRACE_SERIES[4]! });
  for (const s of run.page.stalls) rows.push({ t: (s.start - t0) / 1000, value: 0, series: 'stall' });
  return rows;
}

/**
 * Per family: bitrate, buffer and pace over time of every arm at every buffer target on one
 * representative trace (with the trace's capacity and what the link released, per second), and
 * each arm's per-run distributions, the buffer targets side by side.
 */
export async function plotTraceFamilies(runs: RawRun[], metrics: RunMetrics[], arms: Arm[], dir: string): Promise<string[]> {
  const files: string[] = [];
  const families = [...new Set(metrics.map((m) => m.family).filter((f): f is string => f !== undefined))].sort();
  const buffers = bufferTargetsIn(metrics);
  const color = {
    field: 'series',
    type: 'nominal' as const,
    title: null,
    scale: { domain: TRACE_SERIES, range: ['#bbbbbb', '#1f77b4', '#2ca02c', '#ff7f0e', '#d62728'] },
  };
  const mbpsSeries = TRACE_SERIES.filter((x) => x.endsWith('(Mbps)'));
  for (const family of families) {
    const slug = family.replace(/[^A-Za-z0-9_-]+/g, '_');
    const trace = representativeTrace(metrics, family);
    const charts: vl.TopLevelSpec[] = [];
    for (const bufferSeconds of buffers) {
      for (const arm of arms) {
        const candidates = metrics.filter((m) => m.trace === trace && m.arm === arm && m.bufferSeconds === bufferSeconds);
        const mid = median(candidates.map((m) => m.meanBitrateKbps ?? 0));
        const best = candidates.sort(
          (a, b) => Math.abs((a.meanBitrateKbps ?? 0) - (mid ?? 0)) - Math.abs((b.meanBitrateKbps ?? 0) - (mid ?? 0)),
        )[0];
        const run = best && runs.find((r) => sameRun(r, best));
        if (!run) continue;
        const rows = traceRows(run);
        // Fast links (a 5G trace peaks at hundreds of Mbit/s): a symmetric log scale keeps the bitrate and pace readable beside the capacity.
        const top = Math.max(...rows.filter((r) => mbpsSeries.includes(r.series as string)).map((r) => r.value as number));
        const fast = top > 20;
        charts.push({
          title: `${ARM_LABELS[arm]}${buffers.length > 1 ? `, buffer ${bufferText(bufferSeconds)}` : ''} on ${trace} (run ${run.index}, neighbour ${run.neighbour})`,
          width: 720,
          height: 150,
          data: { values: rows },
          layer: [
            {
              transform: [{ filter: { field: 'series', oneOf: mbpsSeries } }],
              mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.5 },
              encoding: {
                x: { field: 't', type: 'quantitative', title: 's since play request' },
                y: {
                  field: 'value',
                  type: 'quantitative',
                  title: fast ? 'Mbps (symlog)' : 'Mbps',
                  ...(fast
                    ? { scale: { type: 'symlog', domain: [0, symlogTicks(top).at(-1)], nice: false }, axis: { values: symlogTicks(top) } }
                    : {}),
                },
                color,
              },
            },
            {
              transform: [{ filter: `datum.series === '${TRACE_SERIES[4]}'` }],
              mark: { type: 'line', strokeWidth: 1.5, strokeDash: [3, 2] },
              encoding: {
                x: { field: 't', type: 'quantitative' },
                y: { field: 'value', type: 'quantitative', title: 'buffer (s)', axis: { orient: 'right' } },
                color,
              },
            },
            {
              transform: [{ filter: "datum.series === 'stall'" }],
              mark: { type: 'rule', color: 'black', strokeDash: [2, 2] },
              encoding: { x: { field: 't', type: 'quantitative' } },
            },
          ],
          resolve: { scale: { y: 'independent' } },
        } as unknown as vl.TopLevelSpec);
      }
    }
    if (charts.length) {
      const name = `trace-${slug}-timeseries`;
      await render(
        {
          title: `${family}: bitrate, pace and buffer over time on ${trace}`,
          vconcat: charts,
          config: { legend: { orient: 'top', labelLimit: 0 } },
        } as unknown as vl.TopLevelSpec,
        dir,
        name,
      );
      files.push(name);
    }
    const perRun: Array<[string, (m: RunMetrics) => number | undefined]> = [
      ['mean bitrate (kbps)', (m) => m.meanBitrateKbps],
      ['rebuffer ratio (%)', (m) => (m.rebufferRatio === undefined ? undefined : m.rebufferRatio * 100)],
      ['quality switches', (m) => m.qualitySwitches],
      ['startup (ms)', (m) => m.startupDelayMs],
      ['QoE_lin', (m) => m.qoeLin],
      ['chunk throughput (Mbps)', (m) => m.chunkThroughputMbps],
      ['queue delay p50 (ms)', (m) => m.queueDelayP50Ms],
      ['UDP one-way p50 (ms)', (m) => (m.neighbour === 'udp' ? m.neighbourMetric?.p50 : undefined)],
      ['UDP one-way p95 (ms)', (m) => (m.neighbour === 'udp' ? m.neighbourMetric?.p95 : undefined)],
      ['UDP p50, 2nd half (ms)', (m) => (m.neighbour === 'udp' ? m.udpSecondHalf?.p50 : undefined)],
      ['TCP neighbour (Mbit/s)', (m) => (m.neighbour === 'tcp' ? m.neighbourMetric?.mean : undefined)],
    ];
    const panels: vl.TopLevelSpec[] = [];
    const order = arms.map((a) => ARM_LABELS[a]);
    for (const [title, get] of perRun) {
      const values: Row[] = [];
      for (const m of metrics.filter((x) => x.family === family)) {
        const v = get(m);
        if (v !== undefined && Number.isFinite(v))
          values.push({ arm: ARM_LABELS[m.arm], buffer: bufferText(m.bufferSeconds), value: v, trace: m.trace ?? '' });
      }
      if (values.length === 0) continue;
      // Arms on x, the buffer targets side by side within each (bar: median; marker: one run, its shape the trace).
      const x = { field: 'arm', type: 'nominal', title: null, sort: order, axis: { labelAngle: -40, labelLimit: 0 } };
      const xOffset = { field: 'buffer', type: 'nominal', sort: buffers.map(bufferText) };
      const bufferColor = { field: 'buffer', type: 'nominal', title: 'buffer target', sort: buffers.map(bufferText) };
      panels.push({
        title,
        width: 150,
        height: 200,
        data: { values },
        layer: [
          {
            mark: { type: 'bar', opacity: 0.3 },
            encoding: { x, xOffset, y: { aggregate: 'median', field: 'value', type: 'quantitative', title: null }, color: bufferColor },
          },
          {
            mark: { type: 'point', filled: true },
            encoding: {
              x,
              xOffset,
              y: { field: 'value', type: 'quantitative' },
              shape: { field: 'trace', type: 'nominal', title: 'trace' },
              color: bufferColor,
            },
          },
        ],
      } as unknown as vl.TopLevelSpec);
    }
    if (panels.length) {
      const name = `trace-${slug}-distributions`;
      // Two rows of panels: eleven side by side are too wide to read.
      const half = Math.ceil(panels.length / 2);
      await render(
        {
          title: `${family}: per-run values by arm and buffer target (bar: median; marker: one run, shape: trace)`,
          vconcat: [{ hconcat: panels.slice(0, half) }, { hconcat: panels.slice(half) }],
          config: { legend: { orient: 'bottom', labelLimit: 0 } },
        } as unknown as vl.TopLevelSpec,
        dir,
        name,
      );
      files.push(name);
    }
  }
  return files;
}

/**
 * The rate sweep's plots: one metric against the link multiple (log x), a line through each arm's
 * medians, a min–max bar and a dot per run. Vega-Lite specs rendered as plots.ts renders the
 * bench's own (Vega in Node to SVG, resvg to PNG).
 */
import type * as vl from 'vega-lite';
import { render, symlogTicks } from './plots.js';
import { median } from './stats.js';
import { armLabel, type SweepMetric, type SweepPoint } from './sweep-report.js';

/**
 * The delays span two orders of magnitude across the sweep (a full queue is 20 ms at 12 ×, 160 ms at
 * 1.5 ×) and a paced arm's queue delay can be 0: a symmetric log scale shows both ends and zero.
 */
export interface SweepPlot {
  name: string;
  metric: SweepMetric;
  title: string;
  unit: string;
  yScale?: 'symlog';
  /** false: the y axis need not start at 0 (bitrates differ by a few percent). */
  zero?: false;
}

export const SWEEP_PLOTS: readonly SweepPlot[] = [
  { name: 'sweep-queue-delay', metric: 'queueDelayP50Ms', title: 'bottleneck queue delay p50 per run', unit: 'ms', yScale: 'symlog' },
  { name: 'sweep-udp-p50', metric: 'udpP50Ms', title: 'UDP neighbour one-way delay p50 per run', unit: 'ms', yScale: 'symlog' },
  { name: 'sweep-bitrate', metric: 'meanBitrateKbps', title: 'mean video bitrate per run', unit: 'kbps', zero: false },
  { name: 'sweep-chunk-throughput', metric: 'chunkThroughputMbps', title: 'video chunk throughput per run', unit: 'Mbps' },
];

/** Arms side by side around each multiple (×1.04 apart, on the log axis), so their dots and bars do not cover each other. */
const DODGE = 1.04;

export interface PlotRows {
  runs: Array<{ arm: string; x: number; multiple: number; value: number; run: number }>;
  medians: Array<{ arm: string; x: number; multiple: number; median: number; min: number; max: number }>;
}

export function sweepPlotRows(points: readonly SweepPoint[], arms: readonly string[], metric: SweepMetric): PlotRows {
  const out: PlotRows = { runs: [], medians: [] };
  arms.forEach((arm, i) => {
    const dodge = DODGE ** (i - (arms.length - 1) / 2);
    for (const p of points) {
      const rs = p.rows.filter((r) => r.arm === arm && r[metric] !== undefined);
      const values = rs.map((r) => r[metric] as number);
      const mid = median(values);
      if (mid === undefined) continue;
      const x = p.multiple * dodge;
      for (const r of rs) out.runs.push({ arm: armLabel(arm), x, multiple: p.multiple, value: r[metric] as number, run: r.run });
      out.medians.push({ arm: armLabel(arm), x, multiple: p.multiple, median: mid, min: Math.min(...values), max: Math.max(...values) });
    }
  });
  return out;
}

export function sweepPlotSpec(
  plot: SweepPlot,
  rows: PlotRows,
  arms: readonly string[],
  multiples: readonly number[],
  topVideoKbps: number,
): vl.TopLevelSpec {
  const { title, unit, yScale, zero } = plot;
  const labels = arms.map(armLabel);
  const ticks = symlogTicks(Math.max(...rows.runs.map((r) => r.value), ...rows.medians.map((r) => r.max)));
  const scale = yScale
    ? { scale: { type: yScale, domain: [0, ticks.at(-1)], nice: false }, axis: { values: ticks } }
    : zero === false
      ? { scale: { zero: false } }
      : {};
  const y = (field: string) => ({ field, type: 'quantitative', ...scale });
  const color = { field: 'arm', type: 'nominal', title: null, scale: { domain: labels } };
  const x = {
    field: 'x',
    type: 'quantitative',
    title: `link rate: multiple of the top video bitrate (${topVideoKbps} kbps), log scale`,
    scale: { type: 'log', domain: [Math.min(...multiples) / 1.25, Math.max(...multiples) * 1.25], nice: false },
    // Each tick also says the link's rate, as linkFor rounds it.
    axis: {
      values: [...multiples],
      format: '~g',
      labelOverlap: false,
      labelExpr: `[datum.label + '×', format(round(datum.value * ${topVideoKbps}) / 1000, '~g') + ' Mbit/s']`,
    },
  };
  return {
    title: { text: title, subtitle: 'line: median over runs; bar: min–max; dot: one run', subtitleColor: 'gray' },
    width: 720,
    height: 300,
    layer: [
      {
        data: { values: rows.medians },
        mark: { type: 'line', point: { filled: true, size: 50 } },
        encoding: { x, y: { ...y('median'), title: `${unit}${yScale ? ' (symlog scale)' : ''}` }, color },
      },
      {
        data: { values: rows.medians },
        mark: { type: 'rule', strokeWidth: 1.5 },
        encoding: { x, y: y('min'), y2: { field: 'max' }, color },
      },
      { data: { values: rows.runs }, mark: { type: 'point', size: 22, opacity: 0.6 }, encoding: { x, y: y('value'), color } },
    ],
    config: { legend: { orient: 'bottom', columns: 1, labelLimit: 0 } },
  } as unknown as vl.TopLevelSpec;
}

/** Writes every sweep plot that has data into `dir`; returns their names. */
export async function plotSweep(
  points: readonly SweepPoint[],
  arms: readonly string[],
  topVideoKbps: number,
  dir: string,
): Promise<string[]> {
  const names: string[] = [];
  const multiples = points.map((p) => p.multiple);
  for (const p of SWEEP_PLOTS) {
    const rows = sweepPlotRows(points, arms, p.metric);
    if (rows.runs.length === 0) continue;
    await render(sweepPlotSpec(p, rows, arms, multiples, topVideoKbps), dir, p.name);
    names.push(p.name);
  }
  return names;
}

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatDuration, formatRate } from './format.js';
import type { GraphData, SeriesName } from './graph-data.js';
import { alignSeries, lastValueIndexes } from './time-series.js';

/** Wall-clock interval, ms. */
export interface Interval {
  start: number;
  end: number;
}

type Style = 'points' | 'hollow-points' | 'small-points' | 'step' | 'dashed-step';

interface LineSpec {
  source: SeriesName;
  label: string;
  color: string;
  style: Style;
  scale: string;
  format: (v: number) => string;
}

interface ChartSpec {
  container: HTMLElement;
  /** Share of the window height, within [150, 320] px: a laptop sees all three graphs at once. */
  heightShare: number;
  lines: LineSpec[];
  scales: uPlot.Scales;
  axes: uPlot.Axis[];
  /** Background bands behind the series, e.g. Sammy-on periods or stalls. */
  shade?: { color: string; intervals: () => Interval[] };
}

const FONT = '12px system-ui, sans-serif';
const AXIS_STROKE = '#4b5563';
const GRID = { stroke: '#e5e7eb', width: 1 };
/** Wall-clock ticks as plain clock times: the date line uPlot adds by default costs a row per graph. */
const formatClock = uPlot.fmtDate('{HH}:{mm}:{ss}');
const clockTicks: uPlot.Axis['values'] = (_u, splits) => splits.map((s) => formatClock(new Date(s * 1000)));
const TIME_AXIS_LABEL = 'time of day (hh:mm:ss)';

function seriesOptions(line: LineSpec): uPlot.Series {
  const base: uPlot.Series = {
    label: line.label,
    stroke: line.color,
    scale: line.scale,
    value: (_u, v) => (v == null ? '–' : line.format(v)),
  };
  switch (line.style) {
    case 'points':
    case 'hollow-points':
    case 'small-points':
      // One dot per response: joining them would suggest a rate between responses that nobody measured.
      return {
        ...base,
        paths: () => null,
        // Rings are larger and see-through: where server and client agree (paced), the dot sits inside the ring.
        points:
          line.style === 'points'
            ? { show: true, size: 7, width: 1, fill: line.color }
            : line.style === 'small-points'
              ? { show: true, size: 4, width: 1, fill: line.color }
              : { show: true, size: 11, width: 1.5, fill: 'rgba(0, 0, 0, 0)' },
      };
    case 'step':
    case 'dashed-step':
      // A rate holds from one request to the next.
      return {
        ...base,
        width: 2,
        paths: uPlot.paths.stepped!({ align: 1 }),
        points: { show: false },
        ...(line.style === 'dashed-step' ? { dash: [6, 4] } : {}),
      };
  }
}

/** Paints intervals as full-height bands before the axes and series are drawn. */
function shadePlugin(color: string, intervals: () => Interval[]): uPlot.Plugin {
  return {
    hooks: {
      drawClear: (u) => {
        const { left, top, width, height } = u.bbox;
        u.ctx.save();
        u.ctx.fillStyle = color;
        for (const iv of intervals()) {
          const x0 = Math.max(left, u.valToPos(iv.start / 1000, 'x', true));
          const x1 = Math.min(left + width, u.valToPos(iv.end / 1000, 'x', true));
          if (x1 > x0 - 2) u.ctx.fillRect(x0, top, Math.max(2, x1 - x0), height);
        }
        u.ctx.restore();
      },
    },
  };
}

function axis(scale: string, label: string, values?: uPlot.Axis['values'], side?: 1 | 3): uPlot.Axis {
  return {
    scale,
    label,
    font: FONT,
    labelFont: FONT,
    stroke: AXIS_STROKE,
    grid: side === 1 ? { show: false } : GRID,
    size: 56,
    labelSize: 18,
    ...(side !== undefined ? { side } : {}),
    ...(values ? { values } : {}),
  };
}

function heightOf(spec: ChartSpec): number {
  return Math.round(Math.min(320, Math.max(150, window.innerHeight * spec.heightShare)));
}

/** The four live graphs, drawn over one shared wall-clock window. */
export class Charts {
  private readonly plots: { plot: uPlot; spec: ChartSpec }[] = [];
  private window: [number, number] = [0, 1];
  private readonly resize = new ResizeObserver(() => this.fit());
  private readonly onWindowResize = () => this.fit();

  constructor(
    private readonly data: GraphData,
    containers: { rates: HTMLElement; delivery: HTMLElement; buffer: HTMLElement; tcp: HTMLElement },
    shading: { paced: () => Interval[]; stalls: () => Interval[] },
  ) {
    const mbpsTicks: uPlot.Axis['values'] = (_u, splits) => splits.map((v) => (v == null ? '' : String(+(v / 1000).toPrecision(3))));
    // The kernel's estimate spans 100 Mbps to 100 Gbps on loopback: Gbps keeps its ticks short.
    const gbpsTicks: uPlot.Axis['values'] = (_u, splits) => splits.map((v) => (v == null ? '' : String(+(v / 1e6).toPrecision(3))));
    const specs: ChartSpec[] = [
      {
        container: containers.rates,
        heightShare: 0.25,
        // Log scale: an unpaced chunk on loopback runs at Gbps, the ladder at a few Mbps; both must be readable.
        scales: { kbps: { distr: 3, log: 10 } },
        axes: [axis('kbps', 'Mbps (log)', mbpsTicks)],
        lines: [
          {
            source: 'chunkThroughput',
            label: 'chunk throughput (client)',
            color: '#2563eb',
            style: 'points',
            scale: 'kbps',
            format: formatRate,
          },
          {
            source: 'achievedRate',
            label: 'achieved (server record)',
            color: '#ea580c',
            style: 'hollow-points',
            scale: 'kbps',
            format: formatRate,
          },
          { source: 'paceRate', label: 'pace rate (rtp)', color: '#16a34a', style: 'step', scale: 'kbps', format: formatRate },
          { source: 'bitrate', label: 'bitrate', color: '#7c3aed', style: 'step', scale: 'kbps', format: formatRate },
          { source: 'topBitrate', label: 'top bitrate', color: '#6b7280', style: 'dashed-step', scale: 'kbps', format: formatRate },
        ],
        shade: { color: 'rgba(22, 163, 74, 0.08)', intervals: shading.paced },
      },
      {
        // A graph of its own: on loopback the kernel's estimate reaches 10–100 Gbps, and on the rates
        // graph's axis it squeezed pace, bitrate and chunk throughput into the bottom band.
        container: containers.delivery,
        heightShare: 0.12,
        scales: { kbps: { distr: 3, log: 10 } },
        axes: [axis('kbps', 'Gbps (log)', gbpsTicks)],
        lines: [
          // Read before the body was sent: the connection's rate so far, not this response's.
          {
            source: 'tcpDeliveryRate',
            label: 'kernel TCP delivery rate at response start',
            color: '#0f766e',
            style: 'small-points',
            scale: 'kbps',
            format: formatRate,
          },
        ],
        shade: { color: 'rgba(22, 163, 74, 0.08)', intervals: shading.paced },
      },
      {
        container: containers.buffer,
        heightShare: 0.16,
        scales: { s: { range: (_u, _min, max) => [0, Math.max(10, Math.ceil((max ?? 0) / 5) * 5)] } },
        axes: [axis('s', 'seconds')],
        lines: [
          {
            source: 'bufferLevel',
            label: 'video buffer level',
            color: '#0891b2',
            style: 'step',
            scale: 's',
            format: (v) => formatDuration(v * 1000),
          },
        ],
        shade: { color: 'rgba(220, 38, 38, 0.25)', intervals: shading.stalls },
      },
      {
        container: containers.tcp,
        heightShare: 0.16,
        scales: {
          ms: { range: (_u, _min, max) => [0, Math.max(1, (max ?? 0) * 1.1)] },
          count: { range: (_u, _min, max) => [0, Math.max(5, Math.ceil((max ?? 0) * 1.1))] },
        },
        axes: [
          axis('ms', 'RTT (ms)'),
          axis('count', 'retransmits', (_u, splits) => splits.map((v) => (v == null || !Number.isInteger(v) ? '' : String(v))), 1),
        ],
        lines: [
          { source: 'rtt', label: 'RTT (smoothed)', color: '#db2777', style: 'points', scale: 'ms', format: (v) => `${v.toFixed(2)} ms` },
          {
            source: 'retransmits',
            label: 'retransmits (connection total)',
            color: '#ca8a04',
            style: 'step',
            scale: 'count',
            format: (v) => String(Math.round(v)),
          },
        ],
      },
    ];
    for (const spec of specs) this.plots.push({ plot: this.create(spec), spec });
    for (const { spec } of this.plots) this.resize.observe(spec.container);
    window.addEventListener('resize', this.onWindowResize);
  }

  /** Redraws every graph over [from, to] (wall-clock ms). */
  refresh(from: number, to: number): void {
    this.window = [from / 1000, Math.max(to, from + 1000) / 1000];
    for (const { plot, spec } of this.plots) {
      const columns = alignSeries(
        spec.lines.map((l) => this.data.series[l.source]),
        from,
      );
      plot.setData(columns, true);
      // Away from the cursor the legend shows each series' latest value, not a row of dashes.
      if (plot.cursor.idx == null) plot.setLegend({ idxs: lastValueIndexes(columns) }, false);
    }
  }

  destroy(): void {
    this.resize.disconnect();
    window.removeEventListener('resize', this.onWindowResize);
    for (const { plot } of this.plots) plot.destroy();
  }

  private create(spec: ChartSpec): uPlot {
    const options: uPlot.Options = {
      width: this.widthOf(spec.container),
      height: heightOf(spec),
      cursor: { sync: { key: 'sammy-demo' }, drag: { x: false, y: false } },
      legend: { live: true },
      scales: { x: { time: true, range: () => this.window }, ...spec.scales },
      axes: [
        {
          font: FONT,
          labelFont: FONT,
          label: TIME_AXIS_LABEL,
          labelSize: 18,
          stroke: AXIS_STROKE,
          grid: GRID,
          space: 70,
          values: clockTicks,
        },
        ...spec.axes,
      ],
      series: [{ label: 'time', value: (_u, v) => (v == null ? '–' : formatClock(new Date(v * 1000))) }, ...spec.lines.map(seriesOptions)],
      plugins: spec.shade ? [shadePlugin(spec.shade.color, spec.shade.intervals)] : [],
    };
    const empty = [[], ...spec.lines.map(() => [])] as unknown as uPlot.AlignedData;
    return new uPlot(options, empty, spec.container);
  }

  private widthOf(el: HTMLElement): number {
    return Math.max(280, Math.floor(el.clientWidth));
  }

  private fit(): void {
    for (const { plot, spec } of this.plots) {
      const width = this.widthOf(spec.container);
      const height = heightOf(spec);
      if (width !== plot.width || height !== plot.height) plot.setSize({ width, height });
    }
  }
}

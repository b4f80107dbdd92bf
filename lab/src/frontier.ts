/**
 * Issue 39's verdict on real links: per family and buffer target, the four points of the frontier
 * (unpaced dash.js, dash.js's own rtp, Sammy's default, Sammy's neighbour-first preset) as viewer
 * bitrate against the neighbour's delay, and the issue's two targets, each met or missed by how much:
 *
 * - the default (`sammy`) dominates unpaced dash.js: bitrate ≥ 98 %, rebuffer time not more (mean per
 *   run, and on every trace), switches ≤ +10 %, UDP one-way p50 and p95 ≤ unpaced's, and on links at
 *   least 1.25 × the top video bitrate p50 at most half of unpaced's;
 * - `sammy-neighbour-first` dominates dash.js's own rtp: bitrate ≥ dash.js-rtp's, p50 ≤ dash.js-rtp's
 *   + max(10 %, 2 ms), p95 ≤ + 10 %, and no stall on a trace where dash.js-rtp stalled in none of its runs.
 *
 * Pure (run metrics in, data, Markdown and a Vega-Lite spec out), so it is tested without root.
 */
import type * as vl from 'vega-lite';
import { ARM_LABELS, type Arm } from './config.js';
import { bufferTargetsIn, bufferText, EPS, fmt, plus, type FamilyCell, type FamilyTargetCheck } from './family-report.js';
import type { RunMetrics } from './measurements.js';
import { mean, percentChange, spread, type Spread } from './stats.js';
import { signed, spreadCell } from './sweep-report.js';

/** The frontier's four arms, in the plot's and the tables' order: the two anchors, then Sammy's two points. */
export const FRONTIER_ARMS: readonly Arm[] = ['unpaced', 'dashjs-rtp', 'sammy', 'sammy-neighbour-first'];

const FRONTIER_STYLE: Partial<Record<Arm, { color: string; shape: string }>> = {
  unpaced: { color: '#7f7f7f', shape: 'square' },
  'dashjs-rtp': { color: '#9467bd', shape: 'diamond' },
  sammy: { color: '#1f77b4', shape: 'circle' },
  'sammy-neighbour-first': { color: '#2ca02c', shape: 'triangle-down' },
};

/** One arm on one family at one buffer target (as issue 33's FamilyCell): the figures the targets and the plot take. */
export interface FrontierCell extends Pick<FamilyCell, 'family' | 'bufferSeconds' | 'arm' | 'runs' | 'udpRuns' | 'tcpRuns' | 'familyMbps'> {
  /**
   * Mean bitrate and switches of the runs beside the UDP flow (or beside nothing): the same sessions as
   * the delay, so a point of the frontier is one set of sessions. Beside the bulk TCP flow the video
   * shares the link with a flow that takes about half of it: its bitrate there is `tcpBitrateKbps`.
   */
  bitrateKbps: Spread;
  switches: Spread;
  tcpBitrateKbps: Spread;
  /** Seconds stalled per run, from every run (a stall beside any neighbour is a stall): mean over the runs, and per trace. */
  rebufferSeconds: Spread;
  rebufferSecondsMean?: number;
  rebufferSecondsByTrace: Record<string, number>;
  /** Runs with a stall (after the first frame), per trace; and the runs per trace. */
  stalledRunsByTrace: Record<string, number>;
  runsByTrace: Record<string, number>;
  udpP50Ms: Spread;
  udpP95Ms: Spread;
  tcpMbps: Spread;
  /** 1-min load average as each run ended. */
  load: Spread;
}

const finite = (xs: Array<number | undefined>): number[] => xs.filter((x): x is number => x !== undefined && Number.isFinite(x));

/** Family × buffer target × arm for every combination that ran (families by name, buffers ascending, arms as given). */
export function frontierCells(metrics: readonly RunMetrics[], arms: readonly Arm[] = FRONTIER_ARMS): FrontierCell[] {
  const traced = metrics.filter((m) => m.family !== undefined);
  const out: FrontierCell[] = [];
  for (const family of [...new Set(traced.map((m) => m.family!))].sort()) {
    const inFamily = traced.filter((m) => m.family === family);
    const familyMbps = mean(finite([...new Map(inFamily.map((m) => [m.trace, m.traceMbps])).values()]));
    for (const bufferSeconds of bufferTargetsIn(inFamily)) {
      for (const arm of arms) {
        const rs = inFamily.filter((m) => m.bufferSeconds === bufferSeconds && m.arm === arm);
        if (rs.length === 0) continue;
        const byTrace = (f: (ms: RunMetrics[]) => number | undefined): Record<string, number> => {
          const o: Record<string, number> = {};
          for (const t of [...new Set(rs.map((m) => m.trace!))].sort()) {
            const v = f(rs.filter((m) => m.trace === t));
            if (v !== undefined) o[t] = v;
          }
          return o;
        };
        const udp = rs.filter((m) => m.neighbour === 'udp');
        const tcp = rs.filter((m) => m.neighbour === 'tcp');
        const viewer = rs.filter((m) => m.neighbour === 'udp' || m.neighbour === 'none');
        out.push({
          family,
          ...(bufferSeconds !== undefined ? { bufferSeconds } : {}),
          arm,
          runs: rs.length,
          udpRuns: udp.length,
          tcpRuns: tcp.length,
          ...(familyMbps !== undefined ? { familyMbps } : {}),
          bitrateKbps: spread(viewer.map((m) => m.meanBitrateKbps)),
          switches: spread(viewer.map((m) => m.qualitySwitches)),
          tcpBitrateKbps: spread(tcp.map((m) => m.meanBitrateKbps)),
          rebufferSeconds: spread(rs.map((m) => m.rebufferSeconds)),
          rebufferSecondsMean: mean(rs.map((m) => m.rebufferSeconds)),
          rebufferSecondsByTrace: byTrace((ms) => mean(ms.map((m) => m.rebufferSeconds))),
          stalledRunsByTrace: byTrace((ms) => ms.filter((m) => m.rebufferCount > 0).length),
          runsByTrace: byTrace((ms) => ms.length),
          udpP50Ms: spread(udp.map((m) => m.neighbourMetric?.p50)),
          udpP95Ms: spread(udp.map((m) => m.neighbourMetric?.p95)),
          tcpMbps: spread(tcp.map((m) => m.neighbourMetric?.mean)),
          load: spread(rs.map((m) => m.loadAvg1)),
        });
      }
    }
  }
  return out;
}

// ——— Targets ———

export type FrontierRule =
  /** The medians' percent change at most `percent`. */
  | { kind: 'maxChange'; percent: number }
  /** The medians' percent change at least `percent`. */
  | { kind: 'minChange'; percent: number }
  /** The median at most the other's + the larger of `percent` % of it and `absolute` (the metric's unit). */
  | { kind: 'maxAbove'; percent: number; absolute: number }
  /** Rebuffer time: the mean per run not above the other's, and not above it on any trace. */
  | { kind: 'rebufferNotMore' }
  /** No stalled run on a trace where the other arm stalled in none of its runs. */
  | { kind: 'noStallWhereNone' };

export type FrontierMetric = 'bitrateKbps' | 'switches' | 'rebufferSeconds' | 'udpP50Ms' | 'udpP95Ms';

export interface FrontierTarget {
  id: string;
  /** Which of the issue's two targets: the default against unpaced, or the neighbour-first preset against dash.js's rtp. */
  side: 'default' | 'neighbourFirst';
  what: string;
  arm: Arm;
  against: Arm;
  metric: FrontierMetric;
  rule: FrontierRule;
  text: string;
  /** Only on families whose mean capacity over the session is at least this multiple of the top video bitrate. */
  fromTopMultiple?: number;
}

export const FRONTIER_TARGETS: readonly FrontierTarget[] = [
  {
    id: 'default-bitrate',
    side: 'default',
    what: 'mean bitrate',
    arm: 'sammy',
    against: 'unpaced',
    metric: 'bitrateKbps',
    rule: { kind: 'minChange', percent: -2 },
    text: '≥ 98 % of unpaced',
  },
  {
    id: 'default-rebuffer',
    side: 'default',
    what: 'rebuffer time',
    arm: 'sammy',
    against: 'unpaced',
    metric: 'rebufferSeconds',
    rule: { kind: 'rebufferNotMore' },
    text: '≤ unpaced (s per run, and on every trace)',
  },
  {
    id: 'default-switches',
    side: 'default',
    what: 'quality switches',
    arm: 'sammy',
    against: 'unpaced',
    metric: 'switches',
    rule: { kind: 'maxChange', percent: 10 },
    text: '≤ unpaced + 10 %',
  },
  {
    id: 'default-udp-p50',
    side: 'default',
    what: 'UDP one-way p50',
    arm: 'sammy',
    against: 'unpaced',
    metric: 'udpP50Ms',
    rule: { kind: 'maxChange', percent: 0 },
    text: '≤ unpaced',
  },
  {
    id: 'default-udp-p95',
    side: 'default',
    what: 'UDP one-way p95',
    arm: 'sammy',
    against: 'unpaced',
    metric: 'udpP95Ms',
    rule: { kind: 'maxChange', percent: 0 },
    text: '≤ unpaced',
  },
  {
    id: 'default-udp-p50-half',
    side: 'default',
    what: 'UDP one-way p50',
    arm: 'sammy',
    against: 'unpaced',
    metric: 'udpP50Ms',
    rule: { kind: 'maxChange', percent: -50 },
    text: '≤ half of unpaced (links ≥ 1.25 × top)',
    fromTopMultiple: 1.25,
  },
  {
    id: 'nf-bitrate',
    side: 'neighbourFirst',
    what: 'mean bitrate',
    arm: 'sammy-neighbour-first',
    against: 'dashjs-rtp',
    metric: 'bitrateKbps',
    rule: { kind: 'minChange', percent: 0 },
    text: '≥ dash.js rtp',
  },
  {
    id: 'nf-udp-p50',
    side: 'neighbourFirst',
    what: 'UDP one-way p50',
    arm: 'sammy-neighbour-first',
    against: 'dashjs-rtp',
    metric: 'udpP50Ms',
    rule: { kind: 'maxAbove', percent: 10, absolute: 2 },
    text: '≤ dash.js rtp + 10 % or + 2 ms, whichever is larger',
  },
  {
    id: 'nf-udp-p95',
    side: 'neighbourFirst',
    what: 'UDP one-way p95',
    arm: 'sammy-neighbour-first',
    against: 'dashjs-rtp',
    metric: 'udpP95Ms',
    rule: { kind: 'maxChange', percent: 10 },
    text: '≤ dash.js rtp + 10 %',
  },
  {
    id: 'nf-stall',
    side: 'neighbourFirst',
    what: 'stalls',
    arm: 'sammy-neighbour-first',
    against: 'dashjs-rtp',
    metric: 'rebufferSeconds',
    rule: { kind: 'noStallWhereNone' },
    text: 'none on a trace where dash.js rtp has none',
  },
];

/** A verdict as issue 33's (FamilyTargetCheck), on one of issue 39's targets; `change` for rebuffer time is the difference in s per run. */
export type FrontierCheck = Omit<FamilyTargetCheck, 'target'> & { target: FrontierTarget };

const DIGITS: Record<FrontierMetric, number> = { bitrateKbps: 0, switches: 1, rebufferSeconds: 2, udpP50Ms: 2, udpP95Ms: 2 };
const UNIT: Record<FrontierMetric, string> = {
  bitrateKbps: ' kbps',
  switches: '',
  rebufferSeconds: ' s',
  udpP50Ms: ' ms',
  udpP95Ms: ' ms',
};

function judgeOne(
  cells: readonly FrontierCell[],
  family: string,
  bufferSeconds: number | undefined,
  target: FrontierTarget,
  topVideoKbps: number,
): FrontierCheck {
  const base = { family, ...(bufferSeconds !== undefined ? { bufferSeconds } : {}), target };
  const find = (arm: Arm) => cells.find((c) => c.family === family && c.bufferSeconds === bufferSeconds && c.arm === arm);
  const [a, b] = [find(target.arm), find(target.against)];
  const familyMbps = a?.familyMbps ?? b?.familyMbps;
  const multiple = ((familyMbps ?? 0) * 1000) / topVideoKbps;
  if (target.fromTopMultiple !== undefined && !(multiple >= target.fromTopMultiple - EPS)) {
    return {
      ...base,
      verdict: `no target: family mean ${fmt(familyMbps, 2)} Mbit/s = ${multiple.toFixed(2)} × top (< ${target.fromTopMultiple} ×)`,
    };
  }
  if (!a || !b) return { ...base, verdict: `n/a: no ${!a ? target.arm : target.against} runs` };
  const d = DIGITS[target.metric];
  const rule = target.rule;
  if (rule.kind === 'rebufferNotMore') {
    const [value, reference] = [a.rebufferSecondsMean, b.rebufferSecondsMean];
    if (value === undefined || reference === undefined) return { ...base, verdict: 'n/a: no rebuffer figures' };
    const change = value - reference;
    // A trace where the arm stalls longer is a defect, not something a family mean may average away.
    const worse = Object.entries(a.rebufferSecondsByTrace).filter(
      ([t, s]) => b.rebufferSecondsByTrace[t] !== undefined && s > b.rebufferSecondsByTrace[t]! + EPS,
    );
    const met = change <= EPS && worse.length === 0;
    const onTraces = worse.map(([t, s]) => `${t} ${plus(s - b.rebufferSecondsByTrace[t]!, 2)} s`).join(', ');
    const verdict = met
      ? 'met'
      : change > EPS
        ? `missed by ${plus(change, 2)} s per run${onTraces ? `; longer on ${onTraces}` : ''}`
        : `missed on ${onTraces}`;
    return { ...base, value, reference, change, met, verdict };
  }
  if (rule.kind === 'noStallWhereNone') {
    const clean = Object.keys(b.stalledRunsByTrace).filter((t) => b.stalledRunsByTrace[t] === 0);
    const stalled = clean.filter((t) => (a.stalledRunsByTrace[t] ?? 0) > 0);
    const judgedOn = clean.filter((t) => a.runsByTrace[t] !== undefined);
    if (judgedOn.length === 0) return { ...base, verdict: `no target: ${target.against} stalled on every trace both ran` };
    const value = sum(judgedOn.map((t) => a.stalledRunsByTrace[t] ?? 0));
    const met = stalled.length === 0;
    const verdict = met
      ? 'met'
      : `missed: stalled in ${stalled.map((t) => `${a.stalledRunsByTrace[t]} of ${a.runsByTrace[t]} runs on ${t} (${fmt(a.rebufferSecondsByTrace[t], 1)} s per run)`).join(', ')}, where ${target.against} never stalled`;
    return { ...base, value, reference: 0, met, verdict };
  }
  const [value, reference] = [a[target.metric].median, b[target.metric].median];
  if (value === undefined || reference === undefined)
    return { ...base, value, reference, verdict: `n/a: no ${target.what} for ${value === undefined ? target.arm : target.against}` };
  if (rule.kind === 'maxAbove') {
    const allowance = Math.max((reference * rule.percent) / 100, rule.absolute);
    const limit = reference + allowance;
    const over = value - limit;
    const change = percentChange(reference, value);
    return {
      ...base,
      value,
      reference,
      ...(change !== undefined ? { change } : {}),
      met: over <= EPS,
      verdict: over <= EPS ? 'met' : `missed by ${over.toFixed(d)}${UNIT[target.metric]} (limit ${limit.toFixed(d)}${UNIT[target.metric]})`,
    };
  }
  const change = percentChange(reference, value);
  if (change === undefined) {
    // A reference of 0 (no switch at all): only 0 is within any percentage of it.
    const met = value <= EPS;
    return { ...base, value, reference, met, verdict: met ? 'met' : `missed: ${fmt(value, d)} against ${target.against}'s 0` };
  }
  const over = rule.kind === 'maxChange' ? change - rule.percent : rule.percent - change;
  return { ...base, value, reference, change, met: over <= EPS, verdict: over <= EPS ? 'met' : `missed by ${over.toFixed(1)} pp` };
}

const sum = (xs: number[]): number => xs.reduce((a, x) => a + x, 0);

/** Every target on every family and buffer target that ran. */
export function checkFrontierTargets(
  cells: readonly FrontierCell[],
  topVideoKbps: number,
  targets: readonly FrontierTarget[] = FRONTIER_TARGETS,
): FrontierCheck[] {
  const groups = [...new Map(cells.map((c) => [`${c.family}\u0000${c.bufferSeconds}`, c])).values()];
  return groups.flatMap((g) => targets.map((t) => judgeOne(cells, g.family, g.bufferSeconds, t, topVideoKbps)));
}

// ——— The frontier plot ———

export interface FrontierPoint {
  arm: string;
  buffer: string;
  bitrateKbps: number;
  bitrateMin: number;
  bitrateMax: number;
  udpP50Ms: number;
  udpP50Min: number;
  udpP50Max: number;
  runs: number;
  udpRuns: number;
}

/** One family's points: each arm at each buffer target with both figures, median and min–max over runs. */
export function frontierPoints(cells: readonly FrontierCell[], family: string): FrontierPoint[] {
  const out: FrontierPoint[] = [];
  for (const c of cells.filter((x) => x.family === family)) {
    const [x, y] = [c.bitrateKbps, c.udpP50Ms];
    if (x.median === undefined || y.median === undefined) continue;
    out.push({
      arm: ARM_LABELS[c.arm],
      buffer: bufferText(c.bufferSeconds),
      bitrateKbps: x.median,
      bitrateMin: x.min!,
      bitrateMax: x.max!,
      udpP50Ms: y.median,
      udpP50Min: y.min!,
      udpP50Max: y.max!,
      runs: c.runs,
      udpRuns: c.udpRuns,
    });
  }
  return out;
}

/** Per-run dots under the points: each run beside the UDP flow, its bitrate and its neighbour's p50. */
export function frontierRunDots(
  metrics: readonly RunMetrics[],
  family: string,
): Array<{ arm: string; buffer: string; bitrateKbps: number; udpP50Ms: number }> {
  return metrics
    .filter((m) => m.family === family && m.neighbour === 'udp' && m.meanBitrateKbps !== undefined && m.neighbourMetric?.p50 !== undefined)
    .map((m) => ({
      arm: ARM_LABELS[m.arm],
      buffer: bufferText(m.bufferSeconds),
      bitrateKbps: m.meanBitrateKbps!,
      udpP50Ms: m.neighbourMetric!.p50!,
    }));
}

/**
 * The frontier of one family: x the viewer's mean bitrate, y the neighbour's UDP one-way delay p50
 * (log: the anchors' delays span 4–200 ms), a point per arm with min–max whiskers both ways, a faint
 * dot per run; one panel per buffer target. Better is right and down.
 */
export function frontierSpec(
  family: string,
  familyMbps: number | undefined,
  topVideoKbps: number,
  points: readonly FrontierPoint[],
  dots: ReadonlyArray<{ arm: string; buffer: string; bitrateKbps: number; udpP50Ms: number }>,
  arms: readonly Arm[],
): vl.TopLevelSpec {
  const labels = arms.map((a) => ARM_LABELS[a]);
  const buffers = [...new Set(points.map((p) => p.buffer))];
  const ys = [...points.flatMap((p) => [p.udpP50Min, p.udpP50Max]), ...dots.map((d) => d.udpP50Ms)].filter((v) => v > 0);
  const xs = [...points.flatMap((p) => [p.bitrateMin, p.bitrateMax]), ...dots.map((d) => d.bitrateKbps)];
  const yDomain = [Math.min(...ys) / 1.3, Math.max(...ys) * 1.3];
  const xDomain = [Math.max(0, Math.min(...xs) - 150), Math.max(...xs) + 150];
  // Each arm keeps its colour and shape whichever of the four ran: anchors grey and purple, Sammy blue and green.
  const style = (a: Arm) => FRONTIER_STYLE[a] ?? { color: '#8c564b', shape: 'cross' };
  const color = { field: 'arm', type: 'nominal', title: null, scale: { domain: labels, range: arms.map((a) => style(a).color) } };
  const x = (field: string) => ({
    field,
    type: 'quantitative',
    title: 'viewer: mean video bitrate (kbps) → better',
    scale: { domain: xDomain, nice: false },
  });
  const yTicks = [1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000].filter((t) => t >= yDomain[0]! && t <= yDomain[1]!);
  const y = (field: string) => ({
    field,
    type: 'quantitative',
    title: 'neighbour: UDP one-way delay p50 (ms, log) ↓ better',
    scale: { type: 'log', domain: yDomain, nice: false },
    axis: { values: yTicks },
  });
  const panel = (buffer: string): vl.TopLevelSpec =>
    ({
      title: buffers.length > 1 ? `buffer target ${buffer}` : '',
      width: 420,
      height: 300,
      layer: [
        {
          data: { values: dots.filter((d) => d.buffer === buffer) },
          mark: { type: 'point', size: 25, opacity: 0.45 },
          encoding: { x: x('bitrateKbps'), y: y('udpP50Ms'), color },
        },
        {
          data: { values: points.filter((p) => p.buffer === buffer) },
          mark: { type: 'rule', strokeWidth: 1.5 },
          encoding: { x: x('bitrateMin'), x2: { field: 'bitrateMax' }, y: y('udpP50Ms'), color },
        },
        {
          data: { values: points.filter((p) => p.buffer === buffer) },
          mark: { type: 'rule', strokeWidth: 1.5 },
          encoding: { x: x('bitrateKbps'), y: y('udpP50Min'), y2: { field: 'udpP50Max' }, color },
        },
        {
          data: { values: points.filter((p) => p.buffer === buffer) },
          mark: { type: 'point', filled: true, size: 140, opacity: 1 },
          encoding: {
            x: x('bitrateKbps'),
            y: y('udpP50Ms'),
            color,
            shape: { field: 'arm', type: 'nominal', title: null, scale: { domain: labels, range: arms.map((a) => style(a).shape) } },
          },
        },
      ],
    }) as unknown as vl.TopLevelSpec;
  const mean =
    familyMbps === undefined
      ? ''
      : `, link mean ${familyMbps.toFixed(2)} Mbit/s = ${((familyMbps * 1000) / topVideoKbps).toFixed(2)} × top`;
  return {
    title: {
      text: `${family}: viewer bitrate against neighbour delay${mean}`,
      subtitle: [
        'marker: median over runs; whiskers: min–max over runs; faint dots: one run beside the UDP flow',
        'better: right (more bitrate) and down (less delay)',
      ],
      subtitleColor: 'gray',
    },
    hconcat: buffers.map(panel),
    config: { legend: { orient: 'bottom', columns: 2, labelLimit: 0 } },
  } as unknown as vl.TopLevelSpec;
}

/** The plot's file name (without extension) for a family. */
export const frontierPlotName = (family: string): string => `frontier-${family.replace(/[^A-Za-z0-9_-]+/g, '_')}`;

// ——— Markdown ———

function checkCell(c: FrontierCheck): string {
  if (c.value === undefined && c.met === undefined) return c.verdict;
  const m = c.target.metric;
  const d = DIGITS[m];
  if (c.target.rule.kind === 'noStallWhereNone') return c.met ? '**met**' : c.verdict;
  if (c.target.rule.kind === 'rebufferNotMore')
    return `${fmt(c.value, 2)} vs ${fmt(c.reference, 2)} s per run: ${c.met ? '**met**' : c.verdict}`;
  const change = c.change === undefined ? '' : ` (${signed(c.change)})`;
  return `${fmt(c.value, d)} vs ${fmt(c.reference, d)}${change}: ${c.met ? '**met**' : c.verdict}`;
}

/**
 * The issue's section: the targets table (both targets, per family and buffer target) and, per family,
 * the four arms' figures and the frontier plot when it was drawn.
 */
export function renderFrontierSection(input: {
  metrics: readonly RunMetrics[];
  arms: readonly Arm[];
  topVideoKbps: number;
  plots?: readonly string[];
}): string[] {
  const arms = FRONTIER_ARMS.filter((a) => input.arms.includes(a));
  const cells = frontierCells(input.metrics, arms);
  if (cells.length === 0 || arms.length < 2) return [];
  const checks = checkFrontierTargets(cells, input.topVideoKbps).filter(
    (c) => arms.includes(c.target.arm) && arms.includes(c.target.against),
  );
  const judged = checks.filter((c) => c.met !== undefined);
  const families = [...new Set(cells.map((c) => c.family))];
  const buffers = bufferTargetsIn(cells);
  const L: string[] = ['### The frontier (issue 39)', ''];
  L.push(
    `Two targets, per family and buffer target: **the default dominates unpaced dash.js** (sammy against unpaced) and **the neighbour-first preset dominates dash.js's own rtp** ` +
      `(sammy-neighbour-first against dashjs-rtp). Medians over the family's runs; bitrate, switches and the UDP figures from the runs beside the UDP flow; ` +
      `rebuffer time as the mean per run (and no trace worse) and stalls per trace, over every run. "× top" is the family's mean over the session / the top video bitrate (${input.topVideoKbps} kbps). ` +
      `${judged.filter((c) => c.met).length} of ${judged.length} judged targets met; ${checks.length - judged.length} not judged.` +
      (arms.length < FRONTIER_ARMS.length
        ? ` Arms not run here, so their targets are left out: ${FRONTIER_ARMS.filter((a) => !arms.includes(a)).join(', ')}.`
        : ''),
    '',
  );
  if (checks.length) {
    L.push(
      `| family | target | ${buffers.map((b) => `buffer ${bufferText(b)}`).join(' | ')} |`,
      `|---|---|${buffers.map(() => '---').join('|')}|`,
    );
    for (const family of families) {
      for (const t of FRONTIER_TARGETS) {
        const row = buffers.map((b) => checks.find((c) => c.family === family && c.bufferSeconds === b && c.target === t));
        if (row.every((c) => c === undefined)) continue;
        L.push(`| ${family} | ${t.arm} vs ${t.against}: ${t.what} ${t.text} | ${row.map((c) => (c ? checkCell(c) : '—')).join(' | ')} |`);
      }
    }
    L.push('');
  }
  L.push(
    'Per family and arm: median [min–max] over runs. Mean bitrate and switches from the runs beside the UDP flow (the sessions whose delay is beside them); ' +
      "rebuffer time (mean per run [max]) and stalls (runs with a stall / runs) from every run; TCP: the bulk TCP neighbour's mean throughput, and the video's bitrate beside it; " +
      'load: 1-min load average as the runs ended (a shared machine).',
    '',
  );
  for (const family of families) {
    const fc = cells.filter((c) => c.family === family);
    const mbps = fc[0]?.familyMbps;
    L.push(`#### ${family} (${fmt(mbps, 2)} Mbit/s = ${fmt(((mbps ?? 0) * 1000) / input.topVideoKbps, 2)} × top)`, '');
    L.push(
      '| buffer | arm | runs (udp, tcp) | mean bitrate (kbps) | rebuffer (s per run) | stalls | switches | UDP p50 (ms) | UDP p95 (ms) | TCP neighbour (Mbit/s) | bitrate beside TCP (kbps) | load |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const c of fc) {
      const stalled = sum(Object.values(c.stalledRunsByTrace));
      L.push(
        `| ${bufferText(c.bufferSeconds)} | ${c.arm} | ${c.runs} (${c.udpRuns}, ${c.tcpRuns}) | ${spreadCell(c.bitrateKbps, 0)} | ${fmt(c.rebufferSecondsMean, 2)} [${fmt(c.rebufferSeconds.max, 2)}] | ${stalled}/${c.runs} | ` +
          `${spreadCell(c.switches, 1)} | ${spreadCell(c.udpP50Ms, 2)} | ${spreadCell(c.udpP95Ms, 2)} | ${spreadCell(c.tcpMbps, 2)} | ${spreadCell(c.tcpBitrateKbps, 0)} | ${fmt(c.load.min, 1)}–${fmt(c.load.max, 1)} |`,
      );
    }
    L.push('');
    const plot = frontierPlotName(family);
    if (input.plots?.includes(plot)) L.push(`![${family}: the frontier](plots/${plot}.png)`, '');
  }
  return L;
}

/**
 * The family report of a trace run (issue 33): per family and buffer target, every arm's viewer and
 * neighbour figures as medians over runs with their spread, Pensieve's linear QoE, the UDP
 * neighbour's delay in each half of the session, each arm against the others of the same
 * invocation, and the issue's targets, met or missed by how much. Pure (run metrics in, data and
 * Markdown out), so it is tested without root.
 */
import { ARM_LABELS, type Arm } from './config.js';
import { QOE_LIN_REBUFFER_PENALTY, type RunMetrics } from './measurements.js';
import { mean, percentChange, spread, type Spread } from './stats.js';
import { ruleExcess, signed, spreadCell, type TargetRule } from './sweep-report.js';

export type FamilyMetricKey =
  | 'meanBitrateKbps'
  | 'rebufferRatio'
  | 'qualitySwitches'
  | 'startupDelayMs'
  | 'qoeLin'
  | 'chunkThroughputMbps'
  | 'udpP50Ms'
  | 'udpP50FirstHalfMs'
  | 'udpP50SecondHalfMs'
  | 'udpP95Ms'
  | 'udpP95FirstHalfMs'
  | 'udpP95SecondHalfMs'
  | 'tcpMbps';

export interface FamilyMetric {
  key: FamilyMetricKey;
  header: string;
  digits: number;
  /** Display scale (a ratio as percent). */
  scale?: number;
  /** How one arm is set against another: percent change of the medians, or their difference (in display units). */
  delta: 'percent' | 'difference';
  /** Only runs beside this neighbour have the figure. */
  neighbour?: 'udp' | 'tcp';
  get: (m: RunMetrics) => number | undefined;
}

const udp = (m: RunMetrics, v: number | undefined) => (m.neighbour === 'udp' ? v : undefined);

/** The viewer's figures (from every run of the arm, whatever its neighbour). */
export const VIEWER_METRICS: readonly FamilyMetric[] = [
  { key: 'meanBitrateKbps', header: 'mean bitrate (kbps)', digits: 0, delta: 'percent', get: (m) => m.meanBitrateKbps },
  { key: 'rebufferRatio', header: 'rebuffer ratio (%)', digits: 2, scale: 100, delta: 'difference', get: (m) => m.rebufferRatio },
  { key: 'qualitySwitches', header: 'switches (n)', digits: 1, delta: 'difference', get: (m) => m.qualitySwitches },
  { key: 'startupDelayMs', header: 'startup (ms)', digits: 0, delta: 'percent', get: (m) => m.startupDelayMs },
  { key: 'qoeLin', header: 'QoE_lin', digits: 1, delta: 'difference', get: (m) => m.qoeLin },
  { key: 'chunkThroughputMbps', header: 'chunk thr. (Mbps)', digits: 2, delta: 'percent', get: (m) => m.chunkThroughputMbps },
];

/** The neighbours' figures: the UDP flow's one-way delay (whole session, first half, second half), the bulk TCP flow's mean throughput. */
export const NEIGHBOUR_METRICS: readonly FamilyMetric[] = [
  { key: 'udpP50Ms', header: 'UDP p50 (ms)', digits: 2, delta: 'percent', neighbour: 'udp', get: (m) => udp(m, m.neighbourMetric?.p50) },
  {
    key: 'udpP50FirstHalfMs',
    header: 'p50 1st half',
    digits: 2,
    delta: 'percent',
    neighbour: 'udp',
    get: (m) => udp(m, m.udpFirstHalf?.p50),
  },
  {
    key: 'udpP50SecondHalfMs',
    header: 'p50 2nd half',
    digits: 2,
    delta: 'percent',
    neighbour: 'udp',
    get: (m) => udp(m, m.udpSecondHalf?.p50),
  },
  { key: 'udpP95Ms', header: 'UDP p95 (ms)', digits: 2, delta: 'percent', neighbour: 'udp', get: (m) => udp(m, m.neighbourMetric?.p95) },
  {
    key: 'udpP95FirstHalfMs',
    header: 'p95 1st half',
    digits: 2,
    delta: 'percent',
    neighbour: 'udp',
    get: (m) => udp(m, m.udpFirstHalf?.p95),
  },
  {
    key: 'udpP95SecondHalfMs',
    header: 'p95 2nd half',
    digits: 2,
    delta: 'percent',
    neighbour: 'udp',
    get: (m) => udp(m, m.udpSecondHalf?.p95),
  },
  {
    key: 'tcpMbps',
    header: 'TCP neighbour (Mbit/s)',
    digits: 2,
    delta: 'percent',
    neighbour: 'tcp',
    get: (m) => (m.neighbour === 'tcp' ? m.neighbourMetric?.mean : undefined),
  },
];

export const FAMILY_METRICS: readonly FamilyMetric[] = [...VIEWER_METRICS, ...NEIGHBOUR_METRICS];
const metricOf = (key: FamilyMetricKey): FamilyMetric => FAMILY_METRICS.find((x) => x.key === key)!;

export const bufferText = (b: number | undefined): string => (b === undefined ? "players' own" : `${b} s`);

/** The buffer targets some item has, ascending (undefined, the players' own, last). */
export function bufferTargetsIn(items: ReadonlyArray<{ bufferSeconds?: number }>): Array<number | undefined> {
  return [...new Set(items.map((x) => x.bufferSeconds))].sort((a, b) => (a ?? Infinity) - (b ?? Infinity));
}

/** One arm on one family at one buffer target. */
export interface FamilyCell {
  family: string;
  /** undefined: the players' own targets. */
  bufferSeconds?: number;
  arm: Arm;
  runs: number;
  udpRuns: number;
  tcpRuns: number;
  traces: string[];
  /** Mean over the family's traces (those any arm ran) of their mean capacity over the session, Mbit/s. */
  familyMbps?: number;
  stats: Record<FamilyMetricKey, Spread>;
  /** Rebuffer ratio: mean per run, over the cell and per trace (a stall must not hide behind a median of zeros). */
  rebufferRatioMean?: number;
  rebufferRatioByTrace: Record<string, number>;
}

const numbers = (xs: Array<number | undefined>): number[] => xs.filter((x): x is number => x !== undefined && Number.isFinite(x));

/** Family × buffer target × arm, for every combination that ran: families by name, buffer targets ascending, arms as given. */
export function familyCells(metrics: readonly RunMetrics[], arms: readonly Arm[]): FamilyCell[] {
  const traced = metrics.filter((m) => m.family !== undefined);
  const out: FamilyCell[] = [];
  for (const family of [...new Set(traced.map((m) => m.family!))].sort()) {
    const inFamily = traced.filter((m) => m.family === family);
    const traceMbps = new Map(inFamily.map((m) => [m.trace, m.traceMbps]));
    const familyMbps = mean(numbers([...traceMbps.values()]));
    const buffers = bufferTargetsIn(inFamily);
    for (const bufferSeconds of buffers) {
      for (const arm of arms) {
        const rs = inFamily.filter((m) => m.bufferSeconds === bufferSeconds && m.arm === arm);
        if (rs.length === 0) continue;
        const traces = [...new Set(rs.map((m) => m.trace!))].sort();
        const rebufferRatioByTrace: Record<string, number> = {};
        for (const t of traces) {
          const r = mean(numbers(rs.filter((m) => m.trace === t).map((m) => m.rebufferRatio)));
          if (r !== undefined) rebufferRatioByTrace[t] = r;
        }
        out.push({
          family,
          ...(bufferSeconds !== undefined ? { bufferSeconds } : {}),
          arm,
          runs: rs.length,
          udpRuns: rs.filter((m) => m.neighbour === 'udp').length,
          tcpRuns: rs.filter((m) => m.neighbour === 'tcp').length,
          traces,
          ...(familyMbps !== undefined ? { familyMbps } : {}),
          stats: Object.fromEntries(FAMILY_METRICS.map((x) => [x.key, spread(rs.map(x.get))])) as Record<FamilyMetricKey, Spread>,
          rebufferRatioMean: mean(numbers(rs.map((m) => m.rebufferRatio))),
          rebufferRatioByTrace,
        });
      }
    }
  }
  return out;
}

/** `arm`'s median against `other`'s: percent change, or the difference in display units (by the metric's `delta`). */
export function armDelta(metric: FamilyMetric, arm: FamilyCell, other: FamilyCell): number | undefined {
  const [a, b] = [arm.stats[metric.key].median, other.stats[metric.key].median];
  if (metric.delta === 'percent') return percentChange(b, a);
  return a === undefined || b === undefined ? undefined : (a - b) * (metric.scale ?? 1);
}

export interface ArmPair {
  family: string;
  bufferSeconds?: number;
  arm: Arm;
  other: Arm;
  deltas: Partial<Record<FamilyMetricKey, number>>;
}

/** Each arm against every arm before it (in the cells' order) on the same family and buffer target. */
export function armPairs(cells: readonly FamilyCell[]): ArmPair[] {
  const out: ArmPair[] = [];
  for (let j = 0; j < cells.length; j++) {
    const a = cells[j]!;
    for (const b of cells.slice(0, j).filter((c) => c.family === a.family && c.bufferSeconds === a.bufferSeconds)) {
      const deltas: Partial<Record<FamilyMetricKey, number>> = {};
      for (const m of FAMILY_METRICS) {
        const d = armDelta(m, a, b);
        if (d !== undefined) deltas[m.key] = d;
      }
      out.push({
        family: a.family,
        ...(a.bufferSeconds !== undefined ? { bufferSeconds: a.bufferSeconds } : {}),
        arm: a.arm,
        other: b.arm,
        deltas,
      });
    }
  }
  return out;
}

// ——— Targets ———

export interface FamilyTarget {
  id: string;
  what: string;
  arm: Arm;
  against: Arm;
  metric: FamilyMetricKey;
  /** notHigher: the arm's value ≤ the other's (rebuffer ratio: means per run, every trace too; else medians); the rest: medians' percent change. */
  rule: TargetRule;
  text: string;
  /** Only on families whose mean capacity over the session is above this multiple of the top video bitrate. */
  aboveTopMultiple?: number;
}

const viewerTargets = (arm: Arm): FamilyTarget[] => [
  {
    id: `${arm}-rebuffer`,
    what: 'rebuffer ratio',
    arm,
    against: 'unpaced',
    metric: 'rebufferRatio',
    rule: { kind: 'notHigher' },
    text: '≤ unpaced (mean per run, and on every trace)',
  },
  {
    id: `${arm}-bitrate`,
    what: 'mean bitrate',
    arm,
    against: 'unpaced',
    metric: 'meanBitrateKbps',
    rule: { kind: 'minChange', percent: -2 },
    text: '≥ 98 % of unpaced',
  },
  {
    id: `${arm}-switches`,
    what: 'quality switches',
    arm,
    against: 'unpaced',
    metric: 'qualitySwitches',
    rule: { kind: 'notHigher' },
    text: '≤ unpaced',
  },
  {
    id: `${arm}-startup`,
    what: 'startup delay',
    arm,
    against: 'unpaced',
    metric: 'startupDelayMs',
    rule: { kind: 'maxChange', percent: 10 },
    text: '≤ unpaced + 10 %',
  },
];

/** Issue 33's targets, judged on every family at every buffer target. */
export const FAMILY_TARGETS: readonly FamilyTarget[] = [
  ...viewerTargets('sammy'),
  {
    id: 'sammy-udp-p50',
    what: 'UDP one-way p50',
    arm: 'sammy',
    against: 'dashjs-rtp',
    metric: 'udpP50Ms',
    rule: { kind: 'maxChange', percent: 10 },
    text: '≤ dash.js rtp + 10 %',
  },
  {
    id: 'sammy-udp-p95',
    what: 'UDP one-way p95',
    arm: 'sammy',
    against: 'dashjs-rtp',
    metric: 'udpP95Ms',
    rule: { kind: 'maxChange', percent: 10 },
    text: '≤ dash.js rtp + 10 %',
  },
  {
    id: 'sammy-tcp',
    what: 'TCP neighbour throughput',
    arm: 'sammy',
    against: 'unpaced',
    metric: 'tcpMbps',
    rule: { kind: 'minChange', percent: 0 },
    text: '≥ unpaced',
  },
  {
    id: 'sammy-chunk',
    what: 'chunk throughput',
    arm: 'sammy',
    against: 'unpaced',
    metric: 'chunkThroughputMbps',
    rule: { kind: 'maxChange', percent: -60 },
    text: '≥ 60 % lower than unpaced (families above 3 × top)',
    aboveTopMultiple: 3,
  },
  ...viewerTargets('pace-only'),
];

export interface FamilyTargetCheck {
  family: string;
  bufferSeconds?: number;
  target: FamilyTarget;
  value?: number;
  reference?: number;
  /** Percent change, or for notHigher the difference (display units). */
  change?: number;
  /** undefined: not judged (no data, or no target on this family). */
  met?: boolean;
  verdict: string;
}

/** Below this a difference is rounding, not a miss. */
export const EPS = 1e-9;
export const fmt = (x: number | undefined, digits: number): string => (x === undefined ? '—' : x.toFixed(digits));
/** A difference with its sign, in display units. */
export const plus = (x: number, digits: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`;

function checkOne(
  cells: readonly FamilyCell[],
  family: string,
  bufferSeconds: number | undefined,
  target: FamilyTarget,
  topVideoKbps: number,
): FamilyTargetCheck {
  const base = { family, ...(bufferSeconds !== undefined ? { bufferSeconds } : {}), target };
  const find = (arm: Arm) => cells.find((c) => c.family === family && c.bufferSeconds === bufferSeconds && c.arm === arm);
  const [a, b] = [find(target.arm), find(target.against)];
  const metric = metricOf(target.metric);
  const familyMbps = a?.familyMbps ?? b?.familyMbps;
  if (target.aboveTopMultiple !== undefined && !((familyMbps ?? 0) * 1000 > target.aboveTopMultiple * topVideoKbps)) {
    return {
      ...base,
      verdict: `no target: family mean ${fmt(familyMbps, 2)} Mbit/s = ${fmt(((familyMbps ?? 0) * 1000) / topVideoKbps, 1)} × top (≤ ${target.aboveTopMultiple} ×)`,
    };
  }
  if (!a || !b) return { ...base, verdict: `n/a: no ${!a ? target.arm : target.against} runs` };
  const scale = metric.scale ?? 1;
  if (target.rule.kind === 'notHigher') {
    const byMean = target.metric === 'rebufferRatio';
    const [value, reference] = byMean
      ? [a.rebufferRatioMean, b.rebufferRatioMean]
      : [a.stats[target.metric].median, b.stats[target.metric].median];
    if (value === undefined || reference === undefined)
      return { ...base, value, reference, verdict: `n/a: no ${metric.header} for ${value === undefined ? target.arm : target.against}` };
    const change = (value - reference) * scale;
    // A trace where the arm stalls more is a failure, not something to average away (issue 33).
    const worse = byMean
      ? Object.entries(a.rebufferRatioByTrace).filter(
          ([t, r]) => b.rebufferRatioByTrace[t] !== undefined && r > b.rebufferRatioByTrace[t]! + EPS,
        )
      : [];
    const met = change <= EPS && worse.length === 0;
    const unit = byMean ? ' pp' : ' per run';
    const onTraces = worse.map(([t, r]) => `${t} ${plus((r - b.rebufferRatioByTrace[t]!) * scale, 2)}${unit}`).join(', ');
    const verdict = met
      ? 'met'
      : change > EPS
        ? `missed by ${plus(change, 2)}${unit}${onTraces ? `; worse on ${onTraces}` : ''}`
        : `missed on ${onTraces}`;
    return { ...base, value, reference, change, met, verdict };
  }
  const [value, reference] = [a.stats[target.metric].median, b.stats[target.metric].median];
  if (value === undefined || reference === undefined)
    return { ...base, value, reference, verdict: `n/a: no ${metric.header} for ${value === undefined ? target.arm : target.against}` };
  const change = percentChange(reference, value);
  if (change === undefined) return { ...base, value, reference, verdict: `n/a: ${target.against}'s median is 0` };
  const over = ruleExcess(target.rule, change);
  return { ...base, value, reference, change, met: over <= EPS, verdict: over <= EPS ? 'met' : `missed by ${over.toFixed(1)} pp` };
}

/** Every target on every family and buffer target that ran; verdicts say by how much a target is missed. */
export function checkFamilyTargets(
  cells: readonly FamilyCell[],
  topVideoKbps: number,
  targets: readonly FamilyTarget[] = FAMILY_TARGETS,
): FamilyTargetCheck[] {
  const groups = [...new Map(cells.map((c) => [`${c.family}\u0000${c.bufferSeconds}`, c])).values()];
  return groups.flatMap((g) => targets.map((t) => checkOne(cells, g.family, g.bufferSeconds, t, topVideoKbps)));
}

// ——— Markdown ———

function deltaText(metric: FamilyMetric, d: number | undefined): string {
  if (d === undefined) return '—';
  return metric.delta === 'percent' ? signed(d) : plus(d, metric.digits);
}

function checkCell(c: FamilyTargetCheck): string {
  if (c.met === undefined && c.value === undefined) return c.verdict;
  const m = metricOf(c.target.metric);
  const s = m.scale ?? 1;
  const change =
    c.change === undefined ? '' : c.target.rule.kind === 'notHigher' ? ` (${plus(c.change, m.digits)})` : ` (${signed(c.change)})`;
  const values = `${fmt(c.value === undefined ? undefined : c.value * s, m.digits)} vs ${fmt(c.reference === undefined ? undefined : c.reference * s, m.digits)}${change}`;
  return `${values}: ${c.met ? '**met**' : c.verdict}`;
}

export function renderFamilySection(input: { metrics: readonly RunMetrics[]; arms: readonly Arm[]; topVideoKbps: number }): string[] {
  const cells = familyCells(input.metrics, input.arms);
  if (cells.length === 0) return [];
  const checks = checkFamilyTargets(cells, input.topVideoKbps);
  const pairs = armPairs(cells);
  const families = [...new Set(cells.map((c) => c.family))];
  const buffers = bufferTargetsIn(cells);
  const L: string[] = [];
  // Targets of arms or neighbours this invocation did not run are left out (not "n/a" on every family).
  const neighbours = new Set(input.metrics.map((m) => m.neighbour));
  const missing = (t: FamilyTarget): string | undefined => {
    const n = metricOf(t.metric).neighbour;
    if (!input.arms.includes(t.arm) || !input.arms.includes(t.against)) return `${t.arm} against ${t.against}`;
    return n !== undefined && !neighbours.has(n) ? `${t.what} (no ${n} neighbour)` : undefined;
  };
  const ran = (t: FamilyTarget) => missing(t) === undefined;
  const shownChecks = checks.filter((c) => ran(c.target));
  const judged = shownChecks.filter((c) => c.met !== undefined);
  const leftOut = [...new Set(FAMILY_TARGETS.map(missing).filter((x) => x !== undefined))];
  L.push('### Targets per family (issue 33)', '');
  L.push(
    `Each arm against arms of the same invocation, medians over the family's runs (rebuffer ratio: mean per run, and no trace of the family worse). ` +
      `Cells: the arm's value vs the other's (change): verdict; "missed by" is how far past the limit, in percentage points of the change ` +
      `(rebuffer ratio: percentage points of the ratio; switches: per run). Chunk throughput is judged only on families whose mean over the session is above 3 × the top video bitrate (${input.topVideoKbps} kbps). ` +
      `${judged.filter((c) => c.met).length} of ${judged.length} judged targets met; ${shownChecks.length - judged.length} not judged.` +
      (leftOut.length ? ` Not run here, so not judged: ${leftOut.join(', ')}.` : ''),
    '',
  );
  L.push(
    `| family | arm | target | ${buffers.map((b) => `buffer ${bufferText(b)}`).join(' | ')} |`,
    `|---|---|---|${buffers.map(() => '---').join('|')}|`,
  );
  for (const family of families) {
    for (const t of FAMILY_TARGETS.filter(ran)) {
      const row = buffers.map((b) => checks.find((c) => c.family === family && c.bufferSeconds === b && c.target === t));
      if (row.every((c) => c === undefined)) continue;
      L.push(`| ${family} | ${t.arm} | ${t.what} ${t.text} | ${row.map((c) => (c ? checkCell(c) : '—')).join(' | ')} |`);
    }
  }
  L.push('');

  L.push('### Per family', '');
  L.push(
    `Cells: median over runs [min–max]. Viewer figures from every run of the arm (both neighbours), the UDP ones from the runs beside the UDP flow, ` +
      `TCP from those beside the bulk TCP flow (its mean throughput). QoE_lin is Pensieve's linear QoE per session: Σ bitrate (Mbps) − ${QOE_LIN_REBUFFER_PENALTY} × rebuffer (s) − Σ |Δ bitrate| (Mbps) ` +
      `over the segments played (the rendered quality as each segment's playback began; the last, played in part, counts its share; stalls after the first frame). ` +
      `1st / 2nd half: the UDP flow's one-way delay in the first and second half of the session (play request to end).`,
    '',
  );
  for (const family of families) {
    const fc = cells.filter((c) => c.family === family);
    const mbps = fc[0]?.familyMbps;
    const traces = [...new Set(fc.flatMap((c) => c.traces))];
    L.push(
      `#### ${family}`,
      '',
      `${traces.length} trace(s): ${traces.join(', ')}; mean over the session ${fmt(mbps, 2)} Mbit/s = ${fmt(((mbps ?? 0) * 1000) / input.topVideoKbps, 1)} × the top video bitrate.`,
      '',
    );
    const table = (metrics: readonly FamilyMetric[], runs: (c: FamilyCell) => string) => {
      L.push(
        `| buffer | arm | runs | ${metrics.map((m) => m.header).join(' | ')} |`,
        `|---|---|---|${metrics.map(() => '---').join('|')}|`,
      );
      for (const c of fc)
        L.push(
          `| ${bufferText(c.bufferSeconds)} | ${ARM_LABELS[c.arm]} | ${runs(c)} | ${metrics.map((m) => spreadCell(c.stats[m.key], m.digits, m.scale)).join(' | ')} |`,
        );
      L.push('');
    };
    table(VIEWER_METRICS, (c) => `${c.runs}`);
    table(NEIGHBOUR_METRICS, (c) => `udp ${c.udpRuns}, tcp ${c.tcpRuns}`);
    const fp = pairs.filter((p) => p.family === family);
    if (fp.length) {
      L.push('Each arm against the others (medians): percent change, or the difference for rebuffer ratio (pp), switches and QoE_lin.', '');
      const shown = FAMILY_METRICS.filter((m) => !m.key.includes('Half'));
      L.push(`| buffer | arm | against | ${shown.map((m) => m.header).join(' | ')} |`, `|---|---|---|${shown.map(() => '---').join('|')}|`);
      for (const p of fp)
        L.push(
          `| ${bufferText(p.bufferSeconds)} | ${p.arm} | ${p.other} | ${shown.map((m) => deltaText(m, p.deltas[m.key])).join(' | ')} |`,
        );
      L.push('');
    }
  }
  return L;
}

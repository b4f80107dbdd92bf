/**
 * The rate sweep's aggregation and report (issue 17): each bench invocation's runs.csv, one per
 * link multiple, as per-arm medians with their spread, each arm against unpaced, and the issue's
 * targets for one judged arm. Pure (text in, data and Markdown out), so it is tested without root.
 */
import { ARM_LABELS, type Arm } from './config.js';
import { mean, percentChange, spread, type Spread } from './stats.js';

/** One run of one bench invocation, as runs.csv has it (the columns the sweep uses). */
export interface SweepRunRow {
  arm: string;
  neighbour: string;
  run: number;
  startupMs?: number;
  rebuffers?: number;
  /** Stalled time / time since playback started, 0–1. */
  rebufferRatio?: number;
  meanBitrateKbps?: number;
  chunkThroughputMbps?: number;
  qualitySwitches?: number;
  queueDelayP50Ms?: number;
  /** Video segments fetched again (the origin's records; measurements.ts videoRefetches). */
  videoRefetches?: number;
  /** The UDP neighbour's one-way delay p50; only runs next to the UDP neighbour have one. */
  udpP50Ms?: number;
  /** The game neighbour (issue 34): frame latency p95, freezes, received bitrate; only runs next to it have them. */
  gameP95Ms?: number;
  gameFreezes?: number;
  gameReceivedMbps?: number;
}

/** RFC 4180 fields: quoted ("" inside quotes is a quote) or bare; the bench quotes strings only. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** runs.csv → rows, by column name (the order may change); empty cells are absent values. */
export function runsFromCsv(text: string): SweepRunRow[] {
  const [head, ...body] = parseCsv(text);
  if (!head) return [];
  const col = new Map(head.map((h, i) => [h.trim(), i]));
  for (const required of ['arm', 'neighbour', 'run']) if (!col.has(required)) throw new Error(`runs.csv has no "${required}" column`);
  return body.map((cells) => {
    const text = (name: string): string => cells[col.get(name) ?? -1]?.trim() ?? '';
    const num = (name: string): number | undefined => {
      const s = text(name);
      const n = s === '' ? NaN : Number(s);
      return Number.isFinite(n) ? n : undefined;
    };
    const neighbour = text('neighbour');
    return {
      arm: text('arm'),
      neighbour,
      run: num('run') ?? 0,
      startupMs: num('startup_ms'),
      rebuffers: num('rebuffers'),
      rebufferRatio: num('rebuffer_ratio'),
      meanBitrateKbps: num('mean_bitrate_kbps'),
      chunkThroughputMbps: num('chunk_throughput_mbps'),
      qualitySwitches: num('quality_switches'),
      queueDelayP50Ms: num('queue_delay_p50_ms'),
      videoRefetches: num('video_refetches'),
      udpP50Ms: neighbour === 'udp' ? num('neighbour_p50') : undefined,
      ...(neighbour === 'game'
        ? { gameP95Ms: num('game_p95_ms'), gameFreezes: num('game_freezes'), gameReceivedMbps: num('game_received_mbps') }
        : {}),
    };
  });
}

export type SweepMetric = Exclude<keyof SweepRunRow, 'arm' | 'neighbour' | 'run'>;

/** The table's metric columns, in order: header, decimals, and a scale for display (ratio → %). */
export const SWEEP_COLUMNS: ReadonlyArray<{ key: SweepMetric; header: string; digits: number; scale?: number }> = [
  { key: 'udpP50Ms', header: 'UDP one-way p50 (ms)', digits: 2 },
  { key: 'gameP95Ms', header: 'game frame latency p95 (ms)', digits: 1 },
  { key: 'gameFreezes', header: 'game freezes (n)', digits: 0 },
  { key: 'gameReceivedMbps', header: 'game received (Mbit/s)', digits: 2 },
  { key: 'meanBitrateKbps', header: 'mean bitrate (kbps)', digits: 0 },
  { key: 'rebuffers', header: 'rebuffers (n)', digits: 0 },
  { key: 'rebufferRatio', header: 'rebuffer ratio (%)', digits: 2, scale: 100 },
  { key: 'qualitySwitches', header: 'quality switches', digits: 0 },
  { key: 'chunkThroughputMbps', header: 'chunk thr. (Mbps)', digits: 1 },
  { key: 'startupMs', header: 'startup (ms)', digits: 0 },
  { key: 'queueDelayP50Ms', header: 'queue delay p50 (ms)', digits: 1 },
  { key: 'videoRefetches', header: 'video segs fetched again (n)', digits: 0 },
];

/** The metrics whose change against unpaced each table shows, next to their column. */
export const CHANGE_METRICS: readonly SweepMetric[] = [
  'udpP50Ms',
  'gameP95Ms',
  'gameReceivedMbps',
  'meanBitrateKbps',
  'chunkThroughputMbps',
];

/** One bench invocation of the sweep: its link and its runs. */
export interface SweepPoint {
  /** Link rate / top video bitrate. */
  multiple: number;
  rateMbps: number;
  udpMbps: number;
  rows: SweepRunRow[];
  /** Its result folder, relative to the sweep folder (absent when the invocation left none). */
  folder?: string;
  /** Runs the bench reported as failed (summary.json env.failedRuns). */
  failedRuns: number;
  /** Why the invocation itself failed (non-zero exit), if it did. */
  error?: string;
}

export interface SweepArmRow {
  arm: string;
  runs: number;
  stats: Record<SweepMetric, Spread>;
  /** This arm's median against unpaced's, percent (undefined for unpaced, or without data). */
  change: Partial<Record<SweepMetric, number>>;
}

export interface SweepTable {
  multiple: number;
  rateMbps: number;
  udpMbps: number;
  rows: SweepArmRow[];
}

/** Per arm (in `arms`' order, arms without runs too, with 0 runs): each metric's median and range over runs, and changes against unpaced. */
export function aggregatePoint(point: SweepPoint, arms: readonly string[]): SweepTable {
  const rows = arms.map((arm): SweepArmRow => {
    const rs = point.rows.filter((r) => r.arm === arm);
    const stats = Object.fromEntries(SWEEP_COLUMNS.map(({ key }) => [key, spread(rs.map((r) => r[key]))])) as Record<SweepMetric, Spread>;
    return { arm, runs: rs.length, stats, change: {} };
  });
  const unpaced = rows.find((r) => r.arm === 'unpaced');
  for (const r of rows) {
    if (!unpaced || r === unpaced) continue;
    for (const key of CHANGE_METRICS) {
      const c = percentChange(unpaced.stats[key].median, r.stats[key].median);
      if (c !== undefined) r.change[key] = c;
    }
  }
  return { multiple: point.multiple, rateMbps: point.rateMbps, udpMbps: point.udpMbps, rows };
}

/** How a target is met: a change at most / at least a limit, |change| within one, or a mean per run not higher. */
export type TargetRule =
  | { kind: 'maxChange'; percent: number }
  | { kind: 'minChange'; percent: number }
  | { kind: 'within'; percent: number }
  | { kind: 'notHigher' };

export interface SweepTarget {
  id: string;
  what: string;
  metric: SweepMetric;
  /** The link multiples it applies to, inclusive. */
  minMultiple: number;
  maxMultiple: number;
  rule: TargetRule;
  text: string;
}

/** Issue 17's lab targets for the judged arm (the defaults) against unpaced, by link multiple. */
export const SWEEP_TARGETS: readonly SweepTarget[] = [
  {
    id: 'udp-delay',
    what: 'UDP one-way delay p50',
    metric: 'udpP50Ms',
    minMultiple: 1.5,
    maxMultiple: 3,
    rule: { kind: 'maxChange', percent: -50 },
    text: '≥ 50% lower',
  },
  {
    id: 'bitrate',
    what: 'mean bitrate',
    metric: 'meanBitrateKbps',
    minMultiple: 1.5,
    maxMultiple: 3,
    rule: { kind: 'minChange', percent: -2 },
    text: '≥ 98% of unpaced',
  },
  {
    id: 'rebuffers',
    what: 'rebuffers per run (mean)',
    metric: 'rebuffers',
    minMultiple: 1.5,
    maxMultiple: 3,
    rule: { kind: 'notHigher' },
    text: 'not higher',
  },
  {
    id: 'chunk-throughput',
    what: 'chunk throughput',
    metric: 'chunkThroughputMbps',
    minMultiple: 12,
    maxMultiple: 12,
    rule: { kind: 'maxChange', percent: -70 },
    text: '≥ 70% lower',
  },
  {
    id: 'bitrate-top',
    what: 'mean bitrate',
    metric: 'meanBitrateKbps',
    minMultiple: 12,
    maxMultiple: 12,
    rule: { kind: 'within', percent: 1 },
    text: 'within 1%',
  },
  {
    id: 'startup',
    what: 'startup delay',
    metric: 'startupMs',
    minMultiple: 12,
    maxMultiple: 12,
    rule: { kind: 'maxChange', percent: 0 },
    text: 'not worse',
  },
];

/** How far past its limit a change (percent) is, in percentage points: met when ≤ 0. */
export function ruleExcess(rule: Exclude<TargetRule, { kind: 'notHigher' }>, changePercent: number): number {
  return rule.kind === 'maxChange'
    ? changePercent - rule.percent
    : rule.kind === 'minChange'
      ? rule.percent - changePercent
      : Math.abs(changePercent) - rule.percent;
}

/** The arm the targets are for. */
export const JUDGED_ARM = 'sammy';

export interface TargetCheck {
  multiple: number;
  rateMbps: number;
  target: SweepTarget;
  /** Medians over runs; for `notHigher`, means per run. */
  unpaced?: number;
  judged?: number;
  changePercent?: number;
  /** Change per pair of runs with the same index (and neighbour), min–max, when there are pairs. */
  paired?: { n: number; min: number; max: number };
  /** undefined: not judged (no data). */
  met?: boolean;
  verdict: string;
}

const EPS = 1e-9;

export function targetsFor(multiple: number, targets: readonly SweepTarget[] = SWEEP_TARGETS): SweepTarget[] {
  return targets.filter((t) => multiple >= t.minMultiple - EPS && multiple <= t.maxMultiple + EPS);
}

function pairedChanges(point: SweepPoint, arm: string, metric: SweepMetric): TargetCheck['paired'] {
  const changes: number[] = [];
  for (const a of point.rows.filter((r) => r.arm === arm)) {
    const u = point.rows.find((r) => r.arm === 'unpaced' && r.run === a.run && r.neighbour === a.neighbour);
    const c = percentChange(u?.[metric], a[metric]);
    if (c !== undefined) changes.push(c);
  }
  return changes.length ? { n: changes.length, min: Math.min(...changes), max: Math.max(...changes) } : undefined;
}

/** Checks `arm` against unpaced at every point with a target: met, or missed by how much. */
export function checkTargets(points: readonly SweepPoint[], arm: string, targets: readonly SweepTarget[] = SWEEP_TARGETS): TargetCheck[] {
  const out: TargetCheck[] = [];
  for (const point of points) {
    for (const target of targetsFor(point.multiple, targets)) {
      const base = { multiple: point.multiple, rateMbps: point.rateMbps, target };
      const values = (a: string) =>
        point.rows
          .filter((r) => r.arm === a)
          .map((r) => r[target.metric])
          .filter((v): v is number => v !== undefined);
      const [u, j] = [values('unpaced'), values(arm)];
      if (u.length === 0 || j.length === 0) {
        out.push({ ...base, verdict: `n/a: no ${u.length === 0 ? 'unpaced' : arm} runs with ${target.what}` });
        continue;
      }
      if (target.rule.kind === 'notHigher') {
        // Means per run, so an arm that lost a run is not credited with fewer rebuffers.
        const [mu, mj] = [mean(u) as number, mean(j) as number];
        const met = mj <= mu + EPS;
        out.push({ ...base, unpaced: mu, judged: mj, met, verdict: met ? 'met' : `missed: +${(mj - mu).toFixed(2)} per run` });
        continue;
      }
      const [mu, mj] = [spread(u).median as number, spread(j).median as number];
      const change = percentChange(mu, mj);
      const paired = pairedChanges(point, arm, target.metric);
      if (change === undefined) {
        out.push({ ...base, unpaced: mu, judged: mj, ...(paired ? { paired } : {}), verdict: 'n/a: unpaced median is 0' });
        continue;
      }
      const over = ruleExcess(target.rule, change);
      const met = over <= EPS;
      out.push({
        ...base,
        unpaced: mu,
        judged: mj,
        changePercent: change,
        ...(paired ? { paired } : {}),
        met,
        verdict: met ? 'met' : `missed by ${over.toFixed(1)} pp`,
      });
    }
  }
  return out;
}

// ——— Markdown ———

export interface SweepReportInput {
  startedAt: string;
  wallSeconds?: number;
  topVideoKbps: number;
  /** Where the top bitrate was read (the manifest file). */
  topSource: string;
  arms: readonly string[];
  judgedArm: string;
  runs: number;
  durationSeconds: number;
  seed: number;
  queueBytes: number;
  /** The flags every invocation got besides --rate, --udp-mbps, --neighbours, --arms and --results. */
  passthrough: readonly string[];
  /** The neighbour of every invocation (absent: udp). */
  neighbour?: string;
  points: readonly SweepPoint[];
  /** Plot names in plots/ (each as .png and .svg). */
  plots: readonly string[];
}

export const armLabel = (arm: string): string => ARM_LABELS[arm as Arm] ?? arm;

const fmt = (x: number | undefined, digits: number): string => (x === undefined ? '—' : x.toFixed(digits));
export const signed = (x: number | undefined): string => (x === undefined ? '—' : `${x > 0 ? '+' : ''}${x.toFixed(1)}%`);
/** 1.5 → "1.5 ×"; a multiple as the report and folder names show it. */
export const multipleText = (m: number): string => `${Number(m.toFixed(3))} ×`;

/** "median [min–max]" (just the median for one run or no spread; "—" without runs). */
export function spreadCell(s: Spread, digits: number, scale = 1): string {
  if (s.n === 0 || s.median === undefined) return '—';
  const m = fmt(s.median * scale, digits);
  if (s.n === 1 || s.min === s.max) return m;
  return `${m} [${fmt((s.min ?? 0) * scale, digits)}–${fmt((s.max ?? 0) * scale, digits)}]`;
}

/** Full-queue delay at a rate, ms. */
const queueMs = (bytes: number, mbps: number): number => (bytes * 8) / (mbps * 1000);

export function renderSweepMarkdown(input: SweepReportInput): string {
  const { points } = input;
  const tables = points.map((p) => aggregatePoint(p, input.arms));
  const checks = checkTargets(points, input.judgedArm);
  const L: string[] = [];
  const ms = points.map((p) => p.multiple);
  const game = input.neighbour === 'game';
  L.push(
    `# Rate sweep: the link at ${ms.map((m) => Number(m.toFixed(3))).join(', ')} × the top bitrate, with ${game ? 'the WebRTC game stream' : 'a UDP neighbour'} (${input.startedAt})`,
    '',
  );
  if (game) {
    L.push(
      'The neighbour is the game stream (issue 34; `--neighbour game`), its maxBitrate 60 % of each link unless `--game-mbps`; the "UDP neighbour" column ' +
        "below is the rate the bench was given for a UDP flow, which did not run. Each invocation's report.md has the game's full section.",
      '',
    );
  }
  L.push(
    `Top video bitrate ${input.topVideoKbps} kbps: the highest video Representation of \`${input.topSource}\`, read as the bench reads it (audio comes on top). ` +
      `One \`bench:lab\` invocation per link rate (multiple × top), the UDP neighbour at 1/8 of the link (the paper's 5 of 40 Mbit/s). ` +
      `${input.runs} run(s) per arm of ${input.durationSeconds} s, seed ${input.seed}; arms ${input.arms.join(', ')}. ` +
      `The drop-tail queue is ${input.queueBytes} B at every rate, so a full queue holds more time on slower links (column below). ` +
      (input.passthrough.length ? `Passed to every invocation: \`${input.passthrough.join(' ')}\`. ` : '') +
      (input.wallSeconds !== undefined ? `Wall time ${(input.wallSeconds / 60).toFixed(1)} min.` : ''),
    '',
  );
  L.push(
    '| link | rate (Mbit/s) | UDP neighbour (Mbit/s) | full queue (ms) | runs | failed runs | results |',
    '|---|---|---|---|---|---|---|',
  );
  for (const p of points) {
    const results = p.folder ? `[${p.folder}](${p.folder}/report.md)` : '—';
    const failed = `${p.failedRuns}${p.error ? `; invocation failed: ${p.error.split('\n')[0]}` : ''}`;
    L.push(
      `| ${multipleText(p.multiple)} | ${p.rateMbps} | ${p.udpMbps} | ${queueMs(input.queueBytes, p.rateMbps).toFixed(1)} | ${p.rows.length} | ${failed} | ${results} |`,
    );
  }
  L.push('');

  L.push(`## Targets: ${armLabel(input.judgedArm)} against unpaced`, '');
  if (!input.arms.includes(input.judgedArm) || !input.arms.includes('unpaced')) {
    L.push(`Not checked: the sweep ran without ${input.arms.includes('unpaced') ? input.judgedArm : 'unpaced'} (\`--arms\`).`, '');
  } else if (checks.length === 0) {
    L.push('No link multiple of this sweep has a target (1.5–3 × and 12 × have).', '');
  } else {
    L.push(
      `Same invocation, same runs: medians over runs (rebuffers: mean per run); paired: the change per pair of runs with the same index, min–max. ` +
        `${checks.filter((c) => c.met === true).length} of ${checks.length} met` +
        `${checks.some((c) => c.met === undefined) ? `, ${checks.filter((c) => c.met === undefined).length} not judged (no data)` : ''}.`,
      '',
    );
    L.push(`| link | target | unpaced | ${input.judgedArm} | change | paired (n: min–max) | verdict |`, '|---|---|---|---|---|---|---|');
    for (const c of checks) {
      const col = SWEEP_COLUMNS.find((x) => x.key === c.target.metric)!;
      const digits = c.target.rule.kind === 'notHigher' ? 2 : col.digits;
      const change =
        c.target.rule.kind === 'notHigher'
          ? c.unpaced !== undefined && c.judged !== undefined
            ? `${c.judged - c.unpaced >= 0 ? '+' : ''}${(c.judged - c.unpaced).toFixed(2)}`
            : '—'
          : signed(c.changePercent);
      const paired = !c.paired
        ? '—'
        : c.paired.n === 1
          ? `1: ${signed(c.paired.min)}`
          : `${c.paired.n}: ${signed(c.paired.min)} to ${signed(c.paired.max)}`;
      L.push(
        `| ${multipleText(c.multiple)} (${c.rateMbps} Mbit/s) | ${c.target.what} ${c.target.text} | ${fmt(c.unpaced, digits)} | ${fmt(c.judged, digits)} | ${change} | ${paired} | ${c.met === true ? '**met**' : c.verdict} |`,
      );
    }
    L.push('');
  }

  for (const t of tables) {
    L.push(`## ${multipleText(t.multiple)} top: ${t.rateMbps} Mbit/s, UDP neighbour ${t.udpMbps} Mbit/s`, '');
    L.push("Cells: median over runs [min–max]; Δ: the arm's median against unpaced's.", '');
    const head = ['arm', 'runs'];
    // Only the columns some run has (a UDP sweep has no game figures, a game sweep no UDP ones).
    const columns = SWEEP_COLUMNS.filter(
      (c) => t.rows.some((r) => r.stats[c.key].n > 0) || (c.key === 'udpP50Ms' && !t.rows.some((r) => r.stats.gameP95Ms.n > 0)),
    );
    for (const c of columns) {
      head.push(c.header);
      if (CHANGE_METRICS.includes(c.key)) head.push('Δ');
    }
    L.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
    for (const r of t.rows) {
      const cells = [armLabel(r.arm), String(r.runs)];
      for (const c of columns) {
        cells.push(spreadCell(r.stats[c.key], c.digits, c.scale));
        if (CHANGE_METRICS.includes(c.key)) cells.push(r.arm === 'unpaced' ? '' : signed(r.change[c.key]));
      }
      L.push(`| ${cells.join(' | ')} |`);
    }
    L.push('');
  }

  if (input.plots.length) {
    L.push(
      '## Plots',
      '',
      "Against the link multiple (log scale): a line through each arm's medians, a bar from min to max, a dot per run (arms slightly apart on x). PNG and SVG in `plots/`.",
      '',
    );
    for (const p of input.plots) L.push(`![${p}](plots/${p}.png)`, '');
  }
  L.push(
    '## Data',
    '',
    "- `sweep.json`: the sweep's settings, every invocation (link, folder, runs as read from its runs.csv), the tables and target checks",
    "- each invocation's own folder (table above): report.md, runs.csv, summary.json, runs/*.json, plots/",
    '',
  );
  return L.join('\n');
}

/**
 * The report's trace section (--trace, --traces): per family the family report (family-report.ts:
 * medians and spread, QoE_lin, the issue's targets), per trace each arm's quality of experience and
 * traffic (means over runs), and how closely the delay line's link followed each trace.
 */
import { ARM_LABELS, type Arm } from './config.js';
import { bufferTargetsIn, bufferText, renderFamilySection } from './family-report.js';
import { renderFrontierSection } from './frontier.js';
import type { RunMetrics } from './measurements.js';
import { mean } from './stats.js';

export interface TraceGroupRow {
  /** The trace (family/name). */
  group: string;
  family: string;
  /** The players' buffer target (undefined: their own). */
  bufferSeconds?: number;
  arm: Arm;
  runs: number;
  /** Mean capacity the traces offered over the session, Mbit/s. */
  traceMbps?: number;
  meanBitrateKbps?: number;
  rebufferCount?: number;
  rebufferRatio?: number;
  qualitySwitches?: number;
  startupDelayMs?: number;
  chunkThroughputMbps?: number;
  queueDelayP50Ms?: number;
  queueDelayP95Ms?: number;
  /** UDP neighbour's one-way delay p50, when it ran. */
  udpP50Ms?: number;
  medianPaceKbps?: number;
  /** Link: released / trace capacity in saturated seconds (median over runs), and over the whole session. */
  linkSaturatedRatio?: number;
  linkUtilization?: number;
}

const avg = (xs: Array<number | undefined>): number | undefined =>
  mean(xs.filter((x): x is number => x !== undefined && Number.isFinite(x)));

function row(group: string, arm: Arm, rs: RunMetrics[]): TraceGroupRow {
  return {
    group,
    family: rs[0]?.family ?? '',
    ...(rs[0]?.bufferSeconds !== undefined ? { bufferSeconds: rs[0].bufferSeconds } : {}),
    arm,
    runs: rs.length,
    traceMbps: avg(rs.map((r) => r.traceMbps)),
    meanBitrateKbps: avg(rs.map((r) => r.meanBitrateKbps)),
    rebufferCount: avg(rs.map((r) => r.rebufferCount)),
    rebufferRatio: avg(rs.map((r) => r.rebufferRatio)),
    qualitySwitches: avg(rs.map((r) => r.qualitySwitches)),
    startupDelayMs: avg(rs.map((r) => r.startupDelayMs)),
    chunkThroughputMbps: avg(rs.map((r) => r.chunkThroughputMbps)),
    queueDelayP50Ms: avg(rs.map((r) => r.queueDelayP50Ms)),
    queueDelayP95Ms: avg(rs.map((r) => r.queueDelayP95Ms)),
    udpP50Ms: avg(rs.filter((r) => r.neighbour === 'udp').map((r) => r.neighbourMetric?.p50)),
    medianPaceKbps: avg(rs.map((r) => r.medianPaceKbps)),
    linkSaturatedRatio: avg(rs.map((r) => r.link?.saturatedRatioMedian)),
    linkUtilization: avg(rs.map((r) => r.link?.utilization)),
  };
}

/** Rows per trace and buffer target (means over the runs in each), for every arm that ran there; traces by family and name. */
export function traceSummaries(metrics: RunMetrics[], arms: Arm[]): TraceGroupRow[] {
  const traced = metrics.filter((m) => m.trace !== undefined);
  const out: TraceGroupRow[] = [];
  const buffers = bufferTargetsIn(traced);
  for (const trace of [...new Set(traced.map((m) => m.trace as string))].sort()) {
    for (const bufferSeconds of buffers) {
      for (const arm of arms) {
        const rs = traced.filter((m) => m.trace === trace && m.bufferSeconds === bufferSeconds && m.arm === arm);
        if (rs.length) out.push(row(trace, arm, rs));
      }
    }
  }
  return out;
}

const f = (x: number | undefined, d: number): string => (x === undefined ? '—' : x.toFixed(d));

const HEAD = [
  'buffer',
  'arm',
  'runs',
  'trace mean (Mbit/s)',
  'mean bitrate (kbps)',
  'rebuffers (n/run)',
  'rebuffer ratio',
  'quality switches (n/run)',
  'startup (ms)',
  'chunk thr. (Mbps)',
  'queue delay p50 / p95 (ms)',
  'UDP one-way p50 (ms)',
  'pace (Mbps)',
];

function tableRow(r: TraceGroupRow): string {
  return `| ${[
    bufferText(r.bufferSeconds),
    ARM_LABELS[r.arm],
    `${r.runs}`,
    f(r.traceMbps, 2),
    f(r.meanBitrateKbps, 0),
    f(r.rebufferCount, 1),
    r.rebufferRatio === undefined ? '—' : `${(r.rebufferRatio * 100).toFixed(2)}%`,
    f(r.qualitySwitches, 1),
    f(r.startupDelayMs, 0),
    f(r.chunkThroughputMbps, 2),
    `${f(r.queueDelayP50Ms, 1)} / ${f(r.queueDelayP95Ms, 1)}`,
    f(r.udpP50Ms, 2),
    f(r.medianPaceKbps !== undefined ? r.medianPaceKbps / 1000 : undefined, 1),
  ].join(' | ')} |`;
}

/** One trace as the bench read it (the report's `traces`). */
export interface TraceSummary {
  id: string;
  family: string;
  file: string;
  format: string;
  periodSeconds: number;
  meanMbps: number;
  sessionMeanMbps: number;
  peakMbps: number;
  scale?: number;
}

export function renderTraceSection(input: {
  metrics: RunMetrics[];
  arms: Arm[];
  topVideoKbps: number;
  traces: TraceSummary[];
  durationSeconds: number;
  queueBytes: number;
  source?: string;
  /** UDP neighbour: a share of each trace's session mean, else a fixed rate. */
  udpShareOfTrace?: number;
  udpRateMbps: number;
  /** The plots drawn (names without extension): the frontier plots among them go into the frontier section. */
  plots?: readonly string[];
}): string[] {
  const { metrics, arms } = input;
  const rows = traceSummaries(metrics, arms);
  const L: string[] = [];
  L.push('## Trace-driven bottleneck', '');
  L.push(
    `The downlink (server → client) followed each trace from the play request on, in the router's delay line as mahimahi's mm-link does: ` +
      `1500-byte delivery opportunities at the trace's milliseconds (\`[seconds Mbps]\` traces turned into opportunities, one each time the rate has carried 1500 more bytes), ` +
      `looped when shorter than the session, a drop-tail queue of ${input.queueBytes} B; the downlink's tbf sat far above (1000 Mbit/s) and only counted what left. ` +
      `Traces from \`${input.source ?? '?'}\`; sessions of ${input.durationSeconds} s. Queue delay here is the link's: the time its backlog takes to leave at the trace's coming opportunities, sampled every 100 ms.`,
    '',
  );
  const udp = (t: { sessionMeanMbps: number }) =>
    input.udpShareOfTrace !== undefined ? input.udpShareOfTrace * t.sessionMeanMbps : input.udpRateMbps;
  L.push(
    input.udpShareOfTrace !== undefined
      ? `The UDP neighbour (when it runs) sends at ${(input.udpShareOfTrace * 100).toFixed(1)}% of each trace's session mean, as the paper's 5 Mbit/s flow on its 40 Mbit/s link (a fixed 5 Mbit/s would fill the slower traces by itself).`
      : `The UDP neighbour (when it runs) sends at ${input.udpRateMbps} Mbit/s on every trace.`,
    '',
  );
  L.push(
    '| trace | family | format | rates × (--trace-scale) | one pass (s) | mean, whole trace (Mbit/s) | mean over the session (Mbit/s) | × top video | 1-s peak (Mbit/s) | UDP neighbour (Mbit/s) |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const t of input.traces) {
    L.push(
      `| ${t.id} | ${t.family} | ${t.format} | ${t.scale ?? 1} | ${t.periodSeconds.toFixed(1)} | ${t.meanMbps.toFixed(2)} | ${t.sessionMeanMbps.toFixed(2)} | ${((t.sessionMeanMbps * 1000) / input.topVideoKbps).toFixed(2)} | ${t.peakMbps.toFixed(1)} | ${udp(t).toFixed(2)} |`,
    );
  }
  if (input.traces.some((t) => t.scale !== undefined)) {
    L.push(
      '',
      "Scaled traces (`--trace-scale`): every rate of the file × the factor, so the link keeps its shape at another mean; their means, the × top and the UDP neighbour's rate above are of the scaled trace, and their family and id carry the factor (×F).",
    );
  }
  L.push('');

  L.push(...renderFrontierSection({ metrics, arms, topVideoKbps: input.topVideoKbps, plots: input.plots }));
  L.push(...renderFamilySection({ metrics, arms, topVideoKbps: input.topVideoKbps }));

  L.push('### Per trace', '', 'Means over the runs on each trace at each buffer target (rebuffers and switches per run).', '');
  for (const trace of [...new Set(rows.map((r) => r.group))]) {
    L.push(`#### ${trace}`, '', `| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`);
    for (const r of rows.filter((x) => x.group === trace)) L.push(tableRow(r));
    L.push('');
  }

  L.push('### How closely the link followed the trace', '');
  L.push(
    "From the delay line's own counters (a stats line every 100 ms): the capacity the trace offered (1500 B per opportunity, used or not) " +
      'and the bytes of the packets that left. In a *saturated* second (a backlog at every 100-ms sample) a faithful link releases what the trace offers, ' +
      'so released / capacity should be 1. Release lateness: how long after its opportunity a packet was written out (the writer thread woke late). ' +
      'tbf sent: what the downlink tbf behind the link counted (IP + 14 B Ethernet header per packet); its backlog should stay near 0.',
    '',
  );
  L.push(
    '| run | trace mean (Mbit/s) | released (Mbit/s) | utilization | saturated seconds | released / capacity in them: median [min–max] | link drops | release lateness p99 / max (µs) | tbf sent (Mbit/s) | tbf backlog max (B) |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const m of metrics.filter((x) => x.link)) {
    const l = m.link!;
    L.push(
      `| ${m.trace} · ${m.arm} · ${m.neighbour}${m.bufferSeconds !== undefined ? ` · ${m.bufferSeconds} s` : ''} #${m.index} | ${l.traceMbps.toFixed(2)} | ${l.releasedMbps.toFixed(2)} | ${(l.utilization * 100).toFixed(1)}% | ${l.saturatedBins} | ` +
        `${l.saturatedRatioMedian === undefined ? '—' : `${l.saturatedRatioMedian.toFixed(3)} [${f(l.saturatedRatioMin, 3)}–${f(l.saturatedRatioMax, 3)}]`} | ${l.drops} | ` +
        `${f(l.releaseLateP99Us, 0)} / ${l.releaseLateMaxUs} | ${f(l.tbfSentMbps, 2)} | ${l.tbfBacklogMaxBytes ?? '—'} |`,
    );
  }
  const all = metrics.filter((x) => x.link?.saturatedRatioMedian !== undefined);
  if (all.length) {
    const med = all.map((m) => m.link!.saturatedRatioMedian!).sort((a, b) => a - b);
    L.push(
      '',
      `Across ${all.length} runs, the median released / capacity in saturated seconds ranged ${med[0]!.toFixed(3)}–${med.at(-1)!.toFixed(3)}.`,
    );
  }
  L.push('');
  return L;
}

/**
 * One report from several results folders (issue 39: a family run planned in parts, e.g. the anchors
 * one hour and Sammy's arms the next, or more runs added to a cell later). The runs are read back
 * from each folder's runs/*.json and judged together; the folders must have measured the same thing
 * (session length, queue, delay, congestion control, content, edge, HTTP, neighbour rates), else
 * pooling their figures would mix settings, and the merge is refused saying which differs.
 *
 * Pure parts (mergeBenches) are tested without root; the CLI (merge-results-cli.ts) reads and writes.
 */
import type { Arm, BenchConfig, Neighbour } from './config.js';
import { ARMS, NEIGHBOURS } from './config.js';
import type { RawRun } from './measurements.js';
import type { BenchEnvironment } from './report.js';

/** A results folder as the bench left it: its summary's config and environment, and its runs. */
export interface ResultsFolder {
  dir: string;
  /** summary.json's config: the bench's, with each trace as its id. */
  config: Omit<BenchConfig, 'traces'> & { traces?: string[] };
  env: BenchEnvironment;
  runs: RawRun[];
}

/** Settings every folder must share for their runs to pool. */
const SAME: ReadonlyArray<[string, (f: ResultsFolder) => unknown]> = [
  ['session length (--duration)', (f) => f.config.durationSeconds],
  ['queue (--queue)', (f) => f.config.queueBytes],
  ['added RTT (--rtt-ms)', (f) => f.config.rttMs],
  ['server congestion control (--cc)', (f) => f.config.cc],
  ['TCP neighbour congestion control (--neighbour-cc)', (f) => f.config.neighbourCc],
  ['content (--manifest / --content-seconds)', (f) => f.config.manifestPath],
  ['top video bitrate', (f) => f.env.topVideoKbps],
  ['edge (--edge)', (f) => f.config.edge],
  ['HTTP (--http2)', (f) => f.config.http2 ?? false],
  [
    'UDP neighbour rate (--udp-mbps, or its share of the trace)',
    (f) => (f.config.udpShareOfTrace !== undefined ? `share ${f.config.udpShareOfTrace}` : `${f.config.udpRateMbps} Mbit/s`),
  ],
  ['trace-driven link or constant (--trace/--traces, --rate)', (f) => (f.env.traces ? 'traces' : `${f.config.rateMbps} Mbit/s`)],
];

export interface MergedBench {
  config: BenchConfig;
  env: BenchEnvironment;
  runs: RawRun[];
  /** Lines for the top of the merged report: where each part came from. */
  preface: string[];
}

const runKey = (r: RawRun): string => `${r.arm}\u0000${r.neighbour}\u0000${r.trace?.id ?? ''}\u0000${r.bufferSeconds ?? ''}`;

/**
 * The folders as one bench: runs of the same arm × neighbour × trace × buffer target numbered again
 * 1…n in the order they ended (each folder counts from 1, so two folders' "#1" would be one run to the
 * report's plots), arms, neighbours and buffer targets the union of the folders', traces the union of
 * their descriptions, failed runs all kept.
 */
export function mergeBenches(folders: readonly ResultsFolder[]): MergedBench {
  if (folders.length === 0) throw new Error('merge: give at least one results folder');
  for (const [what, get] of SAME) {
    const values = folders.map((f) => JSON.stringify(get(f)));
    if (new Set(values).size > 1) {
      throw new Error(
        `merge: the folders differ in ${what} (${folders.map((f, i) => `${f.dir}: ${values[i]}`).join('; ')}); their runs measured different things and do not pool`,
      );
    }
  }
  for (const f of folders) if (f.runs.length === 0) throw new Error(`merge: ${f.dir} has no runs`);
  const runs = folders.flatMap((f) => f.runs).sort((a, b) => a.endedAt - b.endedAt);
  const counts = new Map<string, number>();
  const renumbered = runs.map((r) => {
    const n = (counts.get(runKey(r)) ?? 0) + 1;
    counts.set(runKey(r), n);
    return { ...r, index: n };
  });
  const first = folders[0]!;
  const arms = ARMS.filter((a) => renumbered.some((r) => r.arm === a)) as Arm[];
  const neighbours = NEIGHBOURS.filter((n) => renumbered.some((r) => r.neighbour === n)) as Neighbour[];
  const buffers = [...new Set(renumbered.map((r) => r.bufferSeconds))].filter((b): b is number => b !== undefined).sort((a, b) => a - b);
  const traces = new Map(folders.flatMap((f) => f.env.traces ?? []).map((t) => [t.id, t]));
  const { traces: _ids, ...firstConfig } = first.config;
  const config: BenchConfig = {
    ...firstConfig,
    arms,
    neighbours,
    runs: Math.max(...counts.values()),
    bufferSeconds: buffers[0] ?? first.config.bufferSeconds,
    traceSource: [...new Set(folders.map((f) => f.config.traceSource).filter((s) => s !== undefined))].join(', ') || undefined,
  };
  // Several targets across the folders make a multi-target bench (the report splits by target); one is a plain one.
  if (buffers.length > 1) config.bufferTargets = buffers;
  else delete config.bufferTargets;
  const env: BenchEnvironment = {
    ...first.env,
    startedAt: folders.map((f) => f.env.startedAt).sort()[0]!,
    wallSeconds: folders.reduce((s, f) => s + (f.env.wallSeconds ?? 0), 0),
    failedRuns: folders.flatMap((f) => f.env.failedRuns),
    ...(traces.size ? { traces: [...traces.values()] } : {}),
  };
  // The delay line's counters belong to one bench's run of it.
  delete env.delayLine;
  const load = (f: ResultsFolder) => {
    const xs = f.runs.map((r) => r.loadAvg?.end[0]).filter((x): x is number => x !== undefined);
    return xs.length ? `load ${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}` : 'load not recorded';
  };
  const preface = [
    `# Merged from ${folders.length} results folder(s)`,
    '',
    `${renumbered.length} runs, judged together below; runs of the same arm × neighbour × trace × buffer target numbered again in the order they ended. ` +
      `The folders shared every setting that changes what a run measures (session length, queue, delay, congestion control, content, edge, HTTP, the UDP neighbour's rate); ` +
      `they ran at different times, so the machine's load differed between them:`,
    '',
    ...folders.map((f) => {
      const arms = [...new Set(f.runs.map((r) => r.arm))].join(', ');
      const ns = [...new Set(f.runs.map((r) => r.neighbour))].join(', ');
      return `- \`${f.dir}\`: started ${f.env.startedAt}, ${f.runs.length} runs (${arms} × ${ns}), ${load(f)}${f.env.failedRuns.length ? `, ${f.env.failedRuns.length} failed` : ''}`;
    }),
  ];
  return { config, env, runs: renumbered, preface };
}

/**
 * `npm run bench:origin:scale [-- --viewers 10,100,1000 --modes h1,h1-unpaced,h2,h2-unpaced,h2-shared --segments 2]`:
 * the origin at N concurrent viewers. The origin runs in a child process (bench-server.ts: its CPU, memory, fds
 * and event-loop delay its own), the viewers in another (scale-clients.ts). Each viewer fetches `segments` real
 * segments (4 s of media at its rtp: 1000–3000 kbps, 2000 on average) at its own rtp. Per mode and N it prints
 * arrival/rtp p5/p50/p95 (each response's request-to-last-byte rate over its rtp; for a shared HTTP/2 session, whose
 * viewers each ask for rtp × its viewers, the session's bytes over its time against that), the share more than 10 % fast, the server's CPU seconds per delivered
 * Gbit, its peak RSS and fds per connection, its event-loop delay p99, then a table and, with --out, the rows as
 * JSON and plots against N (SVG and PNG). --metrics enables the middleware's Prometheus metrics and prints the pacing
 * series of /metrics once half the responses are under way, and after the run. SAMMY_BENCH_CPU_PROF=<dir> profiles the origin (node --cpu-prof).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { makeMediaDir } from '../test/helpers.js';
import { closeChild, killAllChildren, nextMessage, spawnNodeChild } from './child-process.js';
import type { ScaleLoad, ScaleLoadResult, ScaleResponse } from './scale-clients.js';
import { processCpuSeconds, processMemory, startEdge, type EdgeName } from './scale-edges.js';
import { metricValue, startReference } from './scale-reference.js';
import { hostTcpBytes } from './socket-memory.js';
import { countSyscalls, type SyscallRates } from './syscalls.js';
import { startServer, type BenchServer } from './server-process.js';
import { percentile } from './stats.js';

const MODES = {
  h1: { protocol: 'h1', unpaced: false, viewersPerSession: 1, label: 'HTTP/1.1 paced' },
  'h1-unpaced': { protocol: 'h1', unpaced: true, viewersPerSession: 1, label: 'HTTP/1.1 unpaced' },
  h2: { protocol: 'h2', unpaced: false, viewersPerSession: 1, label: 'HTTP/2 paced, a session each' },
  'h2-unpaced': { protocol: 'h2', unpaced: true, viewersPerSession: 1, label: 'HTTP/2 unpaced, a session each' },
  'h2-shared': { protocol: 'h2', unpaced: false, viewersPerSession: 10, label: 'HTTP/2 paced, 10 streams per session' },
  nginx: {
    protocol: 'h1',
    unpaced: false,
    viewersPerSession: 1,
    edge: 'nginx',
    label: 'nginx limit_rate (one worker) in front of the unpaced origin',
  },
  varnish: {
    protocol: 'h1',
    unpaced: false,
    viewersPerSession: 1,
    edge: 'varnish',
    label: 'Varnish + vmod_tcp in front of the unpaced origin',
  },
  'varnish-tuned': {
    protocol: 'h1',
    unpaced: false,
    viewersPerSession: 1,
    edge: 'varnish-tuned',
    label: 'Varnish + vmod_tcp, thread pools sized for N (VARNISH_TUNED_ARGS)',
  },
  // The reference server (sammy-origin) as an operator runs it: its metrics on, on one core or on --workers.
  server: { protocol: 'h1', unpaced: false, viewersPerSession: 1, reference: 'one', label: 'sammy-origin, one process' },
  'server-unpaced': { protocol: 'h1', unpaced: true, viewersPerSession: 1, reference: 'one', label: 'sammy-origin unpaced, one process' },
  cluster: { protocol: 'h1', unpaced: false, viewersPerSession: 1, reference: 'workers', label: 'sammy-origin --workers (node:cluster)' },
  'cluster-unpaced': { protocol: 'h1', unpaced: true, viewersPerSession: 1, reference: 'workers', label: 'sammy-origin --workers unpaced' },
} as const satisfies Record<
  string,
  { protocol: 'h1' | 'h2'; unpaced: boolean; viewersPerSession: number; label: string; edge?: EdgeName; reference?: 'one' | 'workers' }
>;
type Mode = keyof typeof MODES;

/** --syscalls: the counting window, seconds (the responses take 2 × segment-seconds and more). */
const SYSCALL_WINDOW_SECONDS = 4;

/** 2 Mbps on average, each above the default floor (1024 kbps), which would raise a lower one. */
const RTPS_KBPS = [1200, 1600, 2000, 2400, 2800];

const { values } = parseArgs({
  options: {
    viewers: { type: 'string', default: '10,100,1000' },
    modes: { type: 'string', default: 'h1,h1-unpaced,h2,h2-unpaced,h2-shared' },
    segments: { type: 'string', default: '2' },
    'segment-seconds': { type: 'string', default: '4' },
    out: { type: 'string' },
    metrics: { type: 'boolean' },
    workers: { type: 'string', default: '2' },
    syscalls: { type: 'boolean' },
    help: { type: 'boolean' },
  },
});
if (values.help) {
  console.log(
    `usage: npm run bench:origin:scale [-- --viewers 10,100,1000 --modes ${Object.keys(MODES).join(',')} --segments 2 --segment-seconds 4 --workers 2 --out <dir> --metrics --syscalls]`,
  );
  process.exit(0);
}
const counts = values.viewers.split(',').map(Number);
const modes = values.modes.split(',') as Mode[];
const segments = Number(values.segments);
const segmentSeconds = Number(values['segment-seconds']);
const workers = Number(values.workers);
const bad = modes.filter((m) => !(m in MODES));
if (
  bad.length ||
  counts.some((n) => !Number.isInteger(n) || n < 1) ||
  !(segments >= 1) ||
  !(segmentSeconds > 0) ||
  !Number.isInteger(workers) ||
  workers < 1
) {
  console.error(`bad arguments: modes ${Object.keys(MODES).join(', ')}; viewers, segments, workers: positive integers`);
  process.exit(2);
}

export interface ScaleRow {
  mode: Mode;
  viewers: number;
  responses: number;
  errors: number;
  /** The first few distinct errors. */
  firstErrors: string[];
  arrivalP5: number;
  arrivalP50: number;
  arrivalP95: number;
  /** Responses more than 10 % faster than their rtp (share). */
  fastShare: number;
  deliveredGbit: number;
  cpuSeconds: number;
  cpuSecondsPerGbit: number;
  peakRssMB: number;
  rssPerConnectionKB: number;
  fdsPerConnection: number;
  /**
   * Peak kernel memory of the host's TCP sockets over the run, less before it (sockstat, every 250 ms): the
   * server's send queues and the viewers' receive queues, and whatever else the host runs meanwhile.
   */
  kernelTcpMB: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  seconds: number;
  load1: number;
  /** The reference server's processes serving (cluster modes: its workers). */
  workers?: number;
  /** The reference server's CPU seconds per process over the run (the primary first). */
  processCpuSeconds?: number[];
  /** --syscalls: the server's (or edge's) syscalls per second while the responses are under way (NaN: not counted). */
  syscallsPerSecond: number;
  getsockoptPerSecond: number;
  setsockoptPerSecond: number;
  /** write and writev. */
  writesPerSecond: number;
}

const media = makeMediaDir([]);
for (const rtp of RTPS_KBPS) {
  writeFileSync(join(media.dir, 'test', `scale-${rtp}.m4s`), Buffer.alloc(Math.round(rtp * 125 * segmentSeconds), rtp % 251));
}

/** What is measured: the origin itself, or an edge in front of it. */
interface Served {
  url: string;
  cert?: string;
  /** CPU seconds so far; starts a new event-loop delay window (origin only). */
  cpuSeconds(): Promise<number>;
  sample(): Promise<{ rssBytes: number; fds: number; connections: number; activeResponses: number }>;
  /** Event-loop delay over the window (the origin; an edge has none). */
  loopDelay(): Promise<{ p99Ms: number; maxMs: number } | undefined>;
  /** The pacing series of /metrics on one line (--metrics), after the run. */
  scrape?(): Promise<string>;
  /** The same while the responses are under way (where scraping does not reset what is measured). */
  scrapeDuring?(): Promise<string>;
  /** The processes serving (for --syscalls). */
  pids(): number[];
}

function originServed(server: BenchServer): Served {
  return {
    url: server.url,
    cert: server.cert,
    pids: () => [server.pid],
    cpuSeconds: () => server.resetLoopDelay(),
    sample: () => server.stats(),
    async loopDelay() {
      const s = await server.stats();
      return { p99Ms: s.eventLoopDelayP99Ms, maxMs: s.eventLoopDelayMaxMs };
    },
    ...(values.metrics ? { scrape: () => scrape(server.metrics()), scrapeDuring: () => scrape(server.metrics()) } : {}),
  };
}

/**
 * The reference server (one process, or a cluster of `workerCount`): CPU, RSS and fds of all its processes from
 * /proc; the event-loop delay from its /metrics (prom-client's histogram, reset at each scrape: scraped at the start
 * and the end of the run; over workers, the p99 is their mean and the max their max).
 */
async function runReference(mode: Mode, viewers: number, workerCount: number): Promise<ScaleRow> {
  const reference = await startReference({ mediaDir: media.dir, workers: workerCount });
  try {
    const pids = reference.pids();
    const served: Served = {
      url: reference.url,
      pids: () => reference.pids(),
      cpuSeconds: async () => processCpuSeconds(pids),
      sample: async () => ({ ...processMemory(reference.pids()), connections: establishedOn(String(reference.port)), activeResponses: 0 }),
      async loopDelay() {
        const text = await reference.metrics();
        return {
          p99Ms: metricValue(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
          maxMs: metricValue(text, 'nodejs_eventloop_lag_max_seconds') * 1000,
        };
      },
      ...(values.metrics ? { scrape: () => scrape(reference.metrics()) } : {}),
    };
    await reference.metrics(); // starts the event-loop delay window
    const before = pids.map((pid) => processCpuSeconds([pid]));
    const row = await measure(mode, viewers, served, true);
    // How the work spread: each process's CPU seconds (the primary first), e.g. round-robin against the kernel's
    // accept spread (NODE_CLUSTER_SCHED_POLICY=none).
    const processCpu = pids.map((pid, i) => processCpuSeconds([pid]) - before[i]!);
    console.log(
      `  CPU s per process (${workerCount > 1 ? 'primary, workers' : 'one process'}): ${processCpu.map((c) => c.toFixed(1)).join(', ')}`,
    );
    return { ...row, workers: workerCount, processCpuSeconds: processCpu };
  } finally {
    await reference.close();
  }
}

/** Established connections on a local port (ss), for an edge whose own counts we cannot ask. */
function establishedOn(port: string): number {
  const r = spawnSync('ss', ['-tnH', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean).length;
}

async function runOnce(mode: Mode, viewers: number): Promise<ScaleRow> {
  const m: (typeof MODES)[Mode] = MODES[mode];
  const edgeName = 'edge' in m ? m.edge : undefined;
  if ('reference' in m) return runReference(mode, viewers, m.reference === 'one' ? 1 : workers);
  const server = await startServer(
    {
      mediaDir: media.dir,
      // Behind an edge the origin serves unpaced: the edge paces the viewers.
      mode: edgeName ? 'none' : 'kernel',
      http2: m.protocol === 'h2',
      options: { progressTimeoutMs: 60_000, metrics: (values.metrics && !edgeName) ?? false },
    },
    { nofile: 65_536 },
  );
  const edge = edgeName ? await startEdge(edgeName, server.port) : undefined;
  try {
    const served: Served = edge
      ? {
          url: edge.url,
          pids: () => edge.pids(),
          cpuSeconds: async () => processCpuSeconds(edge.pids()),
          sample: async () => ({ ...processMemory(edge.pids()), connections: establishedOn(new URL(edge.url).port), activeResponses: 0 }),
          loopDelay: async () => undefined,
        }
      : originServed(server);
    return await measure(mode, viewers, served, edge !== undefined);
  } finally {
    await edge?.close();
    await server.close();
  }
}

/**
 * Runs the viewers against what is served and measures it. `ethernetMss`: the viewers cap their connections' MSS
 * (for a server whose listening socket is not the test origin's, which caps its own).
 */
async function measure(mode: Mode, viewers: number, served: Served, ethernetMss: boolean): Promise<ScaleRow> {
  const m: (typeof MODES)[Mode] = MODES[mode];
  const idle = await served.sample();
  const cpuBefore = await served.cpuSeconds();
  let peak = idle;
  const idleTcpBytes = hostTcpBytes();
  let peakTcpBytes = idleTcpBytes;
  let polling = true;
  let during: string | undefined;
  let syscalls: Promise<SyscallRates | undefined> | undefined;
  const poller = (async () => {
    while (polling) {
      const s = await served.sample();
      peakTcpBytes = Math.max(peakTcpBytes, hostTcpBytes());
      // --syscalls: counted over a window once half the connections are open (they open over spreadMs, and the
      // first close as the last open).
      if (values.syscalls && syscalls === undefined && s.connections >= Math.ceil(viewers / m.viewersPerSession) / 2)
        syscalls = countSyscalls(served.pids(), SYSCALL_WINDOW_SECONDS);
      peak = {
        ...peak,
        rssBytes: Math.max(peak.rssBytes, s.rssBytes),
        fds: Math.max(peak.fds, s.fds),
        connections: Math.max(peak.connections, s.connections),
      };
      // --metrics: what /metrics says once half the viewers' responses are under way.
      if (served.scrapeDuring && during === undefined && s.activeResponses >= viewers / 2) during = await served.scrapeDuring();
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const load: ScaleLoad = {
    url: served.url,
    cert: served.cert,
    protocol: m.protocol,
    viewers,
    viewersPerSession: m.viewersPerSession,
    segments,
    rtpsKbps: RTPS_KBPS,
    unpaced: m.unpaced,
    spreadMs: Math.min(2000, viewers * 2),
    ethernetMss,
  };
  const clients = spawnNodeChild(new URL('./scale-clients.ts', import.meta.url), [JSON.stringify(load)], { nofile: 65_536 });
  const result = await nextMessage<ScaleLoadResult>(clients, 600_000);
  await closeChild(clients, 5000);
  // One question at a time on the IPC channel: the poller first.
  polling = false;
  await poller;
  const loop = await served.loopDelay();
  if (values.metrics && served.scrape) {
    if (served.scrapeDuring) console.log(`  /metrics during: ${during ?? '(never half the responses under way at once)'}`);
    console.log(`  /metrics after:  ${await served.scrape()}`);
  }
  const cpuSeconds = (await served.cpuSeconds()) - cpuBefore;
  const calls = await syscalls;
  const arrivals = arrivalRatios(result.responses);
  const bytes = result.responses.reduce((sum, r) => sum + r.bytes, 0);
  const deliveredGbit = (bytes * 8) / 1e9;
  const connections = Math.max(1, peak.connections);
  return {
    mode,
    viewers,
    responses: result.responses.length,
    errors: result.errors.length,
    firstErrors: [...new Set(result.errors)].slice(0, 3),
    arrivalP5: percentile(arrivals, 5),
    arrivalP50: percentile(arrivals, 50),
    arrivalP95: percentile(arrivals, 95),
    fastShare: arrivals.filter((a) => a > 1.1).length / Math.max(1, arrivals.length),
    deliveredGbit,
    cpuSeconds,
    cpuSecondsPerGbit: cpuSeconds / deliveredGbit,
    peakRssMB: peak.rssBytes / 1e6,
    rssPerConnectionKB: (peak.rssBytes - idle.rssBytes) / connections / 1024,
    fdsPerConnection: (peak.fds - idle.fds) / connections,
    kernelTcpMB: (peakTcpBytes - idleTcpBytes) / 1e6,
    loopDelayP99Ms: loop?.p99Ms ?? NaN,
    loopDelayMaxMs: loop?.maxMs ?? NaN,
    seconds: result.seconds,
    load1: loadavg()[0]!,
    syscallsPerSecond: calls?.total ?? NaN,
    getsockoptPerSecond: calls?.getsockopt ?? NaN,
    setsockoptPerSecond: calls?.setsockopt ?? NaN,
    writesPerSecond: calls ? calls.write + calls.writev : NaN,
  };
}

/** The pacing series of /metrics on one line: counters, gauges and histogram counts (no buckets). */
async function scrape(metrics: Promise<string>): Promise<string> {
  const text = await metrics;
  return text
    .split('\n')
    .filter((l) => l.startsWith('sammy_') && !l.includes('_bucket') && !l.includes('_sum'))
    .join(', ');
}

/**
 * arrival/rtp: each response's rate (request to last byte) over its rtp. The viewers of a shared HTTP/2 session
 * share its pace (HTTP/2 schedules their streams as it likes), so there it is one figure per session: all its
 * bytes over the time from its first request to its last byte.
 */
function arrivalRatios(responses: readonly ScaleResponse[]): number[] {
  const sessions = new Map<number, ScaleResponse[]>();
  const ratios: number[] = [];
  for (const r of responses) {
    if (r.session === undefined) ratios.push((r.bytes * 8) / r.ms / r.rtpKbps);
    else sessions.set(r.session, [...(sessions.get(r.session) ?? []), r]);
  }
  for (const list of sessions.values()) {
    const bytes = list.reduce((sum, r) => sum + r.bytes, 0);
    const ms = Math.max(...list.map((r) => r.endMs)) - Math.min(...list.map((r) => r.startMs));
    ratios.push((bytes * 8) / ms / list[0]!.rtpKbps);
  }
  return ratios;
}

const COLUMNS: Array<[string, (r: ScaleRow) => string]> = [
  ['mode', (r) => r.mode],
  ['N', (r) => String(r.viewers)],
  ['responses', (r) => String(r.responses)],
  ['errors', (r) => String(r.errors)],
  ['arrival/rtp p5', (r) => r.arrivalP5.toFixed(2)],
  ['p50', (r) => r.arrivalP50.toFixed(2)],
  ['p95', (r) => r.arrivalP95.toFixed(2)],
  ['>10% fast', (r) => `${(r.fastShare * 100).toFixed(1)}%`],
  ['CPU s/Gbit', (r) => r.cpuSecondsPerGbit.toFixed(2)],
  ['peak RSS MB', (r) => r.peakRssMB.toFixed(0)],
  ['RSS/conn KB', (r) => r.rssPerConnectionKB.toFixed(0)],
  ['fds/conn', (r) => r.fdsPerConnection.toFixed(2)],
  ['kernel TCP MB', (r) => r.kernelTcpMB.toFixed(0)],
  ['loop p99 ms', (r) => (Number.isNaN(r.loopDelayP99Ms) ? '-' : r.loopDelayP99Ms.toFixed(1))],
  ['loop max ms', (r) => (Number.isNaN(r.loopDelayMaxMs) ? '-' : r.loopDelayMaxMs.toFixed(0))],
  ['syscalls/s', (r) => (Number.isNaN(r.syscallsPerSecond) ? '-' : r.syscallsPerSecond.toFixed(0))],
  ['getsockopt/s', (r) => (Number.isNaN(r.getsockoptPerSecond) ? '-' : r.getsockoptPerSecond.toFixed(0))],
  ['setsockopt/s', (r) => (Number.isNaN(r.setsockoptPerSecond) ? '-' : r.setsockoptPerSecond.toFixed(0))],
  ['writes/s', (r) => (Number.isNaN(r.writesPerSecond) ? '-' : r.writesPerSecond.toFixed(0))],
  ['Gbit', (r) => r.deliveredGbit.toFixed(2)],
  ['s', (r) => r.seconds.toFixed(1)],
  ['load1', (r) => r.load1.toFixed(1)],
];

function printTable(rows: readonly ScaleRow[]): void {
  const cells = [COLUMNS.map(([h]) => h), ...rows.map((r) => COLUMNS.map(([, f]) => f(r)))];
  const widths = COLUMNS.map((_, j) => Math.max(...cells.map((c) => c[j]!.length)));
  const line = (c: string[]) => `| ${c.map((s, j) => s.padEnd(widths[j]!)).join(' | ')} |`;
  console.log(line(cells[0]!));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells.slice(1)) console.log(line(c));
}

const rows: ScaleRow[] = [];
console.log(
  `scale benchmark: modes ${modes.join(', ')} (cluster: ${workers} workers); viewers ${counts.join(', ')}; ${segments} segments of ${segmentSeconds} s each at rtp ${RTPS_KBPS.join('/')} kbps; load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
try {
  for (const viewers of counts) {
    for (const mode of modes) {
      const row = await runOnce(mode, viewers);
      rows.push(row);
      console.log(
        `${MODES[mode].label}, N=${viewers}: arrival/rtp p50 ${row.arrivalP50.toFixed(2)}, CPU ${row.cpuSecondsPerGbit.toFixed(2)} s/Gbit, loop p99 ${Number.isNaN(row.loopDelayP99Ms) ? '-' : row.loopDelayP99Ms.toFixed(1)} ms, ${row.errors} errors${row.firstErrors.length ? ` (${row.firstErrors.join('; ')})` : ''} (load ${row.load1.toFixed(1)})`,
      );
    }
  }
} finally {
  killAllChildren();
  media.remove();
}
console.log('');
printTable(rows);
if (values.out) {
  const dir = resolve(values.out);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'scale.json'), `${JSON.stringify(rows, null, 2)}\n`);
  const { plotScale } = await import('./scale-plots.js');
  await plotScale(rows, dir);
  console.log(`\nrows and plots in ${dir}`);
}

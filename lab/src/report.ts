/**
 * Aggregation across runs and the Markdown report: arms × metrics per neighbour (median and
 * range over runs), arms grouped by player, then each arm against its own player's unpaced control,
 * Sammy's arms next to the paper and the issue's targets.
 */
import { renderGameSection } from './game/report.js';
import { renderNetSection } from './game/net-report.js';
import { HOME_QUEUE_SPECS } from './home-link.js';
import {
  ARM_LABELS,
  ARM_SPECS,
  armsByPlayer,
  NEIGHBOUR_LABELS,
  PAPER_RTT_MS,
  PLAYER_LABELS,
  type Arm,
  type BenchConfig,
  type Neighbour,
} from './config.js';
import { bytesToMs, protocolText, type RunMetrics } from './measurements.js';
import { judge, TARGETS, type Target } from './paper.js';
import { percentChange, spread, type Spread } from './stats.js';
import { renderTraceSection, type TraceSummary } from './trace-report.js';

export { traceSummaries } from './trace-report.js';

export interface BenchEnvironment {
  baseRttMs?: { udpMedian?: number; udpMin?: number; tcpMinRtt?: number };
  /** Round-trip delay the router's delay line adds, ms (0: none). */
  addedRttMs?: number;
  /** The delay line's own counters at the end (JSON: packets, drops, lateness). */
  delayLine?: string;
  queueBytes: number;
  rateMbps: number;
  burstBytes: number;
  topVideoKbps: number;
  capKbps: number;
  cc: string;
  ccPinnedBy: string;
  /** What the players connect to (EDGE_LABELS); absent in results from before edges existed. */
  edge?: string;
  /** How the lab server speaks HTTP (plain HTTP/1.1, or HTTPS with h2 and its certificate); absent in older results. */
  http?: string;
  kernel: string;
  chromium: string;
  startedAt: string;
  wallSeconds?: number;
  failedRuns: Array<{ arm: Arm; neighbour: Neighbour; index: number; error: string; trace?: string; bufferSeconds?: number }>;
  /** With traces: each one as the bench read it. */
  traces?: TraceSummary[];
}

type MetricKey =
  | 'chunkThroughputMbps'
  | 'meanBitrateKbps'
  | 'rebufferCount'
  | 'rebufferSeconds'
  | 'startupDelayMs'
  | 'videoRttMs'
  | 'queueDelayP50Ms'
  | 'queueDelayP95Ms'
  | 'medianPaceKbps'
  | 'videoRefetches';

const COLUMNS: Array<[MetricKey, string, number]> = [
  ['chunkThroughputMbps', 'chunk thr. (Mbps)', 1],
  ['meanBitrateKbps', 'mean bitrate (kbps)', 0],
  ['rebufferCount', 'rebuffers (n)', 0],
  ['rebufferSeconds', 'rebuffer time (s)', 1],
  ['startupDelayMs', 'startup (ms)', 0],
  ['videoRttMs', 'video RTT (ms)', 1],
  ['queueDelayP50Ms', 'queue delay p50 (ms)', 1],
  ['queueDelayP95Ms', 'p95 (ms)', 1],
  ['medianPaceKbps', 'pace (Mbps)', 1],
  ['videoRefetches', 'video segs fetched again (n)', 0],
];

function fmt(x: number | undefined, digits: number): string {
  return x === undefined ? '—' : x.toFixed(digits);
}

function cell(s: Spread, digits: number, scale = 1): string {
  if (s.n === 0 || s.median === undefined) return '—';
  const m = fmt(s.median * scale, digits);
  if (s.n === 1 || s.min === s.max) return m;
  return `${m} [${fmt((s.min ?? 0) * scale, digits)}–${fmt((s.max ?? 0) * scale, digits)}]`;
}

function signed(x: number | undefined): string {
  return x === undefined ? '—' : `${x > 0 ? '+' : ''}${x.toFixed(1)}%`;
}

export interface ArmSummary {
  arm: Arm;
  neighbour: Neighbour | 'all';
  runs: number;
  metrics: Record<MetricKey, Spread>;
  neighbourP50: Spread;
  neighbourP95: Spread;
  neighbourMean: Spread;
}

export function summarise(metrics: RunMetrics[], arms: Arm[], neighbours: Array<Neighbour | 'all'>): ArmSummary[] {
  const out: ArmSummary[] = [];
  for (const neighbour of neighbours) {
    for (const arm of arms) {
      const rs = metrics.filter((m) => m.arm === arm && (neighbour === 'all' || m.neighbour === neighbour));
      if (rs.length === 0) continue;
      const metricsSpread = Object.fromEntries(COLUMNS.map(([k]) => [k, spread(rs.map((r) => r[k]))])) as Record<MetricKey, Spread>;
      out.push({
        arm,
        neighbour,
        runs: rs.length,
        metrics: metricsSpread,
        neighbourP50: spread(rs.map((r) => r.neighbourMetric?.p50)),
        neighbourP95: spread(rs.map((r) => r.neighbourMetric?.p95)),
        neighbourMean: spread(rs.map((r) => r.neighbourMetric?.mean)),
      });
    }
  }
  return out;
}

export interface Comparison {
  target: Target;
  /** The control's value (its player's unpaced arm). */
  unpaced?: number;
  sammy?: number;
  changePercent?: number;
  verdict: ReturnType<typeof judge>;
}

function valueFor(t: Target, s: ArmSummary | undefined): number | undefined {
  if (!s) return undefined;
  switch (t.id) {
    case 'chunkThroughput':
      return s.metrics.chunkThroughputMbps.median;
    case 'meanBitrate':
      return s.metrics.meanBitrateKbps.median;
    case 'rebuffers':
      return s.metrics.rebufferCount.median;
    case 'startupDelay':
      return s.metrics.startupDelayMs.median;
    case 'videoRtt':
      return s.metrics.videoRttMs.median;
    case 'udpDelay':
    case 'videoNeighbour':
      return s.neighbourP50.median;
    case 'tcpThroughput':
    case 'httpResponse':
      return s.neighbourMean.median;
    default:
      return undefined;
  }
}

/** `other` against `control` (by default its own player's unpaced arm), target by target. */
export function compare(
  summaries: ArmSummary[],
  metrics: RunMetrics[],
  other: Arm = 'sammy',
  control: Arm = ARM_SPECS[other].control,
): Comparison[] {
  const find = (arm: Arm, n: Neighbour | 'all') => summaries.find((s) => s.arm === arm && s.neighbour === n);
  const total = (arm: Arm) => {
    const rs = metrics.filter((m) => m.arm === arm);
    return rs.length ? rs.reduce((a, m) => a + m.rebufferCount, 0) : undefined;
  };
  const rebuffers = { sammyRebuffers: total(other), unpacedRebuffers: total(control) };
  return TARGETS.map((target) => {
    const n = target.neighbour ?? 'all';
    const u = valueFor(target, find(control, n));
    const s = valueFor(target, find(other, n));
    const change = percentChange(u, s);
    return { target, unpaced: u, sammy: s, changePercent: change, verdict: judge(target, change, rebuffers) };
  });
}

export function renderMarkdown(input: { config: BenchConfig; env: BenchEnvironment; metrics: RunMetrics[]; plots: string[] }): string {
  const { config, env, metrics } = input;
  const neighbours = config.neighbours.filter((n) => metrics.some((m) => m.neighbour === n));
  // Grouped by player, so each player's arms sit together next to its own control.
  const arms = armsByPlayer(config.arms);
  const summaries = summarise(metrics, arms, ['all', ...neighbours]);
  const L: string[] = [];
  const bdp = (env.rateMbps * 1e6 * (PAPER_RTT_MS / 1000)) / 8;
  L.push(
    `# Lab bench: Sammy and its neighbours, served by ${config.edge === 'none' ? 'the origin directly' : config.edge} over ${config.http2 ? 'HTTP/2 (TLS)' : 'HTTP/1.1'} (${env.startedAt})`,
    '',
  );
  L.push(`Edge: ${env.edge ?? 'direct origin'}. ${edgeSources(config, metrics)}`, '');
  L.push(
    `HTTP: ${config.http2 ? '**HTTP/2 (h2)**' : 'HTTP/1.1'} — ${env.http ?? 'plain HTTP/1.1'}. ${protocolSummary(config, metrics)}`,
    '',
  );
  if (config.homeQueue) {
    L.push(
      `**Home link** (\`--link home --queue ${config.homeQueue}\`): ${env.rateMbps} Mbit/s with ${config.rttMs} ms of base RTT; the downlink's bottleneck is the router's ` +
        `delay line (a constant ${env.rateMbps} Mbit/s link, a trace of one rate) with its queue: ${HOME_QUEUE_SPECS[config.homeQueue].label}. The kernel has no netem, fq_codel or cake. ` +
        `The downlink's tbf sits far above it; the sentence below describes the uplink's tbf, and "a full queue" means the downlink's FIFO.`,
      '',
    );
  }
  if (env.traces) {
    L.push(
      `**Trace-driven bottleneck**: the downlink follows ${env.traces.length} trace(s) (section below), not the constant rate; ` +
        `the uplink keeps the ${env.rateMbps} Mbit/s tbf. The sentence below describes the constant bottleneck the uplink still has.`,
      '',
    );
  }
  L.push(
    `Bottleneck ${env.rateMbps} Mbit/s (tbf, burst ${env.burstBytes} B) with a drop-tail queue of ${env.queueBytes} B ` +
      `= ${(env.queueBytes / bdp).toFixed(1)} × the paper's BDP (${env.rateMbps} Mbit/s × ${PAPER_RTT_MS} ms = ${bdp} B), on the router's egress toward the client. ` +
      `Measured base RTT through the empty bottleneck: ${fmt(env.baseRttMs?.udpMedian, 3)} ms (UDP echo between Node processes, median; min ${fmt(env.baseRttMs?.udpMin, 3)} ms)` +
      `${env.baseRttMs?.tcpMinRtt !== undefined ? `, TCP min_rtt of the video connections ${fmt(env.baseRttMs.tcpMinRtt, 3)} ms` : ''}. ` +
      (env.addedRttMs
        ? `The router adds ${env.addedRttMs} ms of round-trip propagation delay (${env.addedRttMs / 2} ms each way) with a packet-level TUN delay line ` +
          `(netem is not in this kernel; TCP is not terminated)${env.delayLine ? `; its counters: \`${env.delayLine}\`` : ''}. `
        : `No propagation delay is added (--rtt-ms 0), so the base RTT is only what the namespaces themselves take. `) +
      `A full queue adds ${bytesToMs(env.queueBytes, env.rateMbps).toFixed(0)} ms.`,
    '',
    `Server congestion control: ${env.cc} (${env.ccPinnedBy}); bulk TCP neighbour: ${config.neighbourCc}. ` +
      `Top video bitrate ${env.topVideoKbps} kbps (paper: 3300); flat cap ${env.capKbps} kbps. ` +
      `Sessions of ${config.durationSeconds} s from the play request; ${config.runs} run(s) per arm × neighbour; seed ${config.seed}. ` +
      `Content ${config.manifestPath}${config.contentSeconds ? ` (${config.contentSeconds} s)` : ''}; buffer target of every player ${config.bufferTargets ? `${config.bufferTargets.map((b) => `${b} s`).join(', ')} (every run at each; the tables here pool them, the trace section splits them)` : config.bufferSeconds ? `${config.bufferSeconds} s` : "the player's default (dash.js 30 s at top quality, Shaka 10 s, hls.js 30 s)"}. ` +
      `Kernel ${env.kernel}; ${env.chromium}.`,
    '',
  );
  if (env.failedRuns.length) {
    L.push(`**${env.failedRuns.length} run(s) failed** and are not in the tables:`, '');
    for (const f of env.failedRuns)
      L.push(
        `- ${f.arm} × ${f.neighbour}${f.trace ? ` × ${f.trace}` : ''}${f.bufferSeconds !== undefined ? ` × buffer ${f.bufferSeconds} s` : ''} #${f.index}: ${f.error.split('\n')[0]}`,
      );
    L.push('');
  }
  L.push(
    'Cells: median over runs [min–max]. Chunk throughput is Σ bytes / Σ download time of video segments per session (the time-weighted mean), then the median across runs.',
    '',
  );
  const players = [...new Set(arms.map((a) => ARM_SPECS[a].player))];
  if (players.length > 1 || players[0] !== 'dashjs') {
    L.push(
      `Players: ${players.map((p) => PLAYER_LABELS[p]).join(', ')}. Each arm is compared with its own player's unpaced control. ` +
        (players.includes('hlsjs')
          ? "hls.js's bitrate is its variant's BANDWIDTH, which in HLS counts the audio rendition too (on the lab ladder ~130 kbps above the DASH players' video bitrate)."
          : ''),
      '',
    );
  }

  for (const n of ['all' as const, ...neighbours]) {
    const rows = summaries.filter((s) => s.neighbour === n);
    if (rows.length === 0) continue;
    const title = n === 'all' ? 'Video metrics, all runs of each arm' : `Neighbour: ${NEIGHBOUR_LABELS[n]}`;
    L.push(`## ${title}`, '');
    const nm = n === 'all' || n === 'none' ? undefined : metrics.find((m) => m.neighbour === n)?.neighbourMetric;
    const head = ['player', 'arm', 'runs', ...COLUMNS.map(([, h]) => h)];
    if (nm) head.push(`${nm.name} p50 (${nm.unit})`, `p95`, `mean`);
    L.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
    for (const r of rows) {
      const cells = [
        PLAYER_LABELS[ARM_SPECS[r.arm].player],
        ARM_LABELS[r.arm],
        String(r.runs),
        ...COLUMNS.map(([k, , d]) => (k === 'medianPaceKbps' ? cell(r.metrics[k], d, 1 / 1000) : cell(r.metrics[k], d))),
      ];
      if (nm) cells.push(cell(r.neighbourP50, 2), cell(r.neighbourP95, 2), cell(r.neighbourMean, 2));
      L.push(`| ${cells.join(' | ')} |`);
    }
    L.push('');
  }

  // Every arm against its own player's unpaced control, when that ran; Sammy's arms next to the issue's targets.
  for (const other of arms.filter((a) => ARM_SPECS[a].control !== a && arms.includes(ARM_SPECS[a].control))) {
    const control = ARM_SPECS[other].control;
    const cmp = compare(summaries, metrics, other, control);
    const judged = ARM_SPECS[other].judged;
    L.push(`## ${ARM_LABELS[other]} against ${control}${judged ? ": the issue's targets" : ''}`, '');
    L.push(`| metric | ${control} | ${other} | change | paper (lab) | ${judged ? 'target | verdict |' : ''}`);
    L.push(`|---|---|---|---|---|${judged ? '---|---|' : ''}`);
    for (const c of cmp) {
      if (c.unpaced === undefined && c.sammy === undefined) continue;
      const { unit, digits: d } = c.target;
      const paper = [c.target.paperPercent !== undefined ? signed(c.target.paperPercent) : '', c.target.paperNote ?? '']
        .filter(Boolean)
        .join(', ');
      const row = [
        c.target.what,
        `${fmt(c.unpaced, d)} ${unit}`,
        `${fmt(c.sammy, d)} ${unit}`,
        c.target.id === 'rebuffers' ? '' : signed(c.changePercent),
        paper || '—',
      ];
      if (judged) row.push(c.target.targetText, c.verdict.text);
      L.push(`| ${row.join(' | ')} |`);
    }
    L.push('');
  }

  L.push(...renderGameSection(metrics, arms), ...renderNetSection(metrics, arms));

  if (env.traces) {
    L.push(
      ...renderTraceSection({
        metrics,
        arms,
        topVideoKbps: env.topVideoKbps,
        traces: env.traces,
        durationSeconds: config.durationSeconds,
        queueBytes: config.queueBytes,
        source: config.traceSource,
        udpShareOfTrace: config.udpShareOfTrace,
        udpRateMbps: config.udpRateMbps,
        plots: input.plots,
      }),
    );
  }

  if (input.plots.length) {
    L.push('## Plots', '');
    L.push('Each plot is in `plots/` as PNG and SVG.', '');
    for (const p of input.plots) L.push(`![${p}](plots/${p}.png)`, '');
  }
  L.push(
    '## Raw data',
    '',
    '- `runs/*.json`: everything each run recorded (page state, delivery records, queue samples, neighbour data)',
    '- `runs.csv`: one row of metrics per run',
    '- `summary.json`: the tables above as data',
    '',
  );
  return L.join('\n');
}

/** What every run's media went over, all runs together; with --http2 the page failed any run whose media were not all h2. */
function protocolSummary(config: BenchConfig, metrics: RunMetrics[]): string {
  const total: Record<string, number> = {};
  for (const m of metrics) for (const [p, n] of Object.entries(m.mediaProtocols ?? {})) total[p] = (total[p] ?? 0) + n;
  const seen = `Media requests of the main sessions (manifest, init, segments) by Resource Timing \`nextHopProtocol\`, all runs in the tables: ${protocolText(total)}.`;
  return config.http2 ? `${seen} The page checked every one; a run with any media request not over h2 fails, and stops the bench.` : seen;
}

/** Which figures the client measured and which a server reported, for this bench's edge. */
function edgeSources(config: BenchConfig, metrics: RunMetrics[]): string {
  const server = config.edge === 'none' ? 'the origin' : config.edge === 'varnish' ? 'Varnish' : config.edge;
  const sources = [...new Set(metrics.map((m) => m.videoRttSource).filter((s) => s !== undefined))];
  const rtt =
    sources.length === 0
      ? 'no run reported one'
      : sources
          .map((s) =>
            s === 'records'
              ? "the origin's delivery records (TCP_INFO after each video segment's last byte)"
              : `${server}'s Server-Timing \`sammy-rtt\` (smoothed RTT as each video response started${config.edge === 'varnish' ? ', whole ms' : ''})`,
          )
          .join(' or ');
  return (
    `Chunk throughput, bitrate, startup and rebuffers are what the browser measured (Resource Timing, player and video events); ` +
    `the pace is ${server}'s Server-Timing \`sammy-pace\`; the video RTT is from ${rtt}; queue delay from ${config.traces || config.homeQueue ? "the delay line's link (its backlog every 100 ms)" : 'tc'}, neighbour figures from the neighbours themselves.` +
    (config.edge === 'none'
      ? ''
      : ` The origin's delivery records (in runs/*.json) describe ${server}'s unpaced backend fetches over the server namespace's loopback, so no figure uses them.`)
  );
}

export function metricsCsv(metrics: RunMetrics[]): string {
  const head = [
    'arm',
    'neighbour',
    'run',
    'startup_ms',
    'rebuffers',
    'rebuffer_s',
    'mean_bitrate_kbps',
    'chunk_throughput_mbps',
    'video_chunks',
    'video_refetches',
    'video_rtt_ms',
    'video_rtt_source',
    'video_min_rtt_ms',
    'median_pace_kbps',
    'queue_delay_p50_ms',
    'queue_delay_p95_ms',
    'bottleneck_drops',
    'neighbour_metric',
    'neighbour_unit',
    'neighbour_p50',
    'neighbour_p95',
    'neighbour_mean',
    'neighbour_samples',
    'errors',
    'media_protocols',
    'trace',
    'family',
    'trace_mbps',
    'quality_switches',
    'rebuffer_ratio',
    'link_trace_mbps',
    'link_released_mbps',
    'link_utilization',
    'link_saturated_s',
    'link_saturated_ratio',
    'link_release_late_max_us',
    'game_p50_ms',
    'game_p95_ms',
    'game_p99_ms',
    'game_over50_share',
    'game_over100_share',
    'game_freezes',
    'game_freeze_s',
    'game_frames_dropped',
    'game_received_mbps',
    'game_rtt_ms',
    'game_jitter_ms',
    'game_cpu_limited_share',
    'game_alone_p95_ms',
    'load1',
    'buffer_s',
    'qoe_lin',
    'udp_p50_first_half_ms',
    'udp_p50_second_half_ms',
    'udp_p95_first_half_ms',
    'udp_p95_second_half_ms',
    'trace_scale',
    'queue',
    'game_net_p50_ms',
    'game_net_p95_ms',
    'game_net_p99_ms',
    'game_net_over50_share',
    'game_net_over100_share',
    'game_net_loss',
    'game_net_incomplete_frames',
    'game_net_alone_p95_ms',
    'game_target_mbps',
    'game_sender_starved',
    'game_net_frames_with_loss',
    'game_net_packet_p50_ms',
    'game_net_packet_p95_ms',
  ];
  const v = (x: number | string | undefined): string =>
    x === undefined ? '' : typeof x === 'number' ? String(Math.round(x * 1000) / 1000) : `"${x}"`;
  const rows = metrics.map((m) =>
    [
      m.arm,
      m.neighbour,
      m.index,
      m.startupDelayMs,
      m.rebufferCount,
      m.rebufferSeconds,
      m.meanBitrateKbps,
      m.chunkThroughputMbps,
      m.videoChunks,
      m.videoRefetches,
      m.videoRttMs,
      m.videoRttSource,
      m.videoMinRttMs,
      m.medianPaceKbps,
      m.queueDelayP50Ms,
      m.queueDelayP95Ms,
      m.bottleneckDrops,
      m.neighbourMetric?.name,
      m.neighbourMetric?.unit,
      m.neighbourMetric?.p50,
      m.neighbourMetric?.p95,
      m.neighbourMetric?.mean,
      m.neighbourMetric?.samples,
      m.errors,
      m.mediaProtocols ? protocolText(m.mediaProtocols) : undefined,
      m.trace,
      m.family,
      m.traceMbps,
      m.qualitySwitches,
      m.rebufferRatio,
      m.link?.traceMbps,
      m.link?.releasedMbps,
      m.link?.utilization,
      m.link?.saturatedBins,
      m.link?.saturatedRatioMedian,
      m.link?.releaseLateMaxUs,
      m.game?.latencyP50Ms,
      m.game?.latencyP95Ms,
      m.game?.latencyP99Ms,
      m.game?.over50Share,
      m.game?.over100Share,
      m.game?.freezes,
      m.game?.freezeSeconds,
      m.game?.framesDropped,
      m.game?.receivedMbps,
      m.game?.rttMs,
      m.game?.jitterMs,
      m.game?.cpuLimitedShare,
      m.gameAlone?.latencyP95Ms,
      m.loadAvg1,
      m.bufferSeconds,
      m.qoeLin,
      m.udpFirstHalf?.p50,
      m.udpSecondHalf?.p50,
      m.udpFirstHalf?.p95,
      m.udpSecondHalf?.p95,
      m.traceScale,
      m.homeQueue,
      m.gameNet?.p50Ms,
      m.gameNet?.p95Ms,
      m.gameNet?.p99Ms,
      m.gameNet?.over50Share,
      m.gameNet?.over100Share,
      m.gameNet?.packetLossShare,
      m.gameNet?.framesIncomplete,
      m.gameNetAlone?.p95Ms,
      m.game?.targetMbps,
      m.game ? Number(m.game.senderStarved) : undefined,
      m.gameNet?.framesWithLoss,
      m.gameNet?.packetP50Ms,
      m.gameNet?.packetP95Ms,
    ]
      .map((x) => v(x as number | string | undefined))
      .join(','),
  );
  return [head.join(','), ...rows].join('\n') + '\n';
}

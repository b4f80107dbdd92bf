/**
 * What one run records (raw, saved as JSON) and the metrics derived from it.
 */
import { gameLatencies, gameMetrics, type GameMetrics } from './game/metrics.js';
import type { GameRun } from './game/state.js';
import { gameNetFromRun, type GameNetMetrics, type GameNetRun } from './game/net-delay.js';
import type { HomeQueue } from './home-link.js';
import { pathOf, type DeliveryRecord, type PacingReport } from 'sammy-pacing-protocol';
import { mediaSegmentOf } from '@sammy/test-content';
import type { PageState } from './page-state.js';

export type { PageState } from './page-state.js';
import type { Arm, Edge, Neighbour } from './config.js';
import { closeStalls, totalStallTime } from 'sammy-pacing-protocol/measure';
import { mean, quantile } from './stats.js';
import type { QueueSample } from './topology.js';
import type { LinkSample } from './delay-line.js';

/** One request of the HTTP neighbour (neighbours/http-fetches.ts writes them). */
export interface HttpFetch {
  /** ms since the epoch when the request was written. */
  start: number;
  responseMs: number;
  bytes: number;
  status: number;
  /** True when the run ended before the response did: not counted as a response time. */
  cut: boolean;
  /** The connection's HTTP version: `http/1.1`, or the ALPN protocol over TLS (`h2`); absent in results from before it was recorded. */
  protocol?: string;
}

/** `h2`: HTTPS with HTTP/2 (--http2); `http/1.1`: plain HTTP (the default). */
export type HttpVersion = 'h2' | 'http/1.1';

/** Which HTTP the run asked for and what its requests really went over. */
export interface RunProtocol {
  requested: HttpVersion;
  /** The main session's media requests (manifest, init, segments) by Resource Timing nextHopProtocol. */
  media: Record<string, number>;
  /** The second video session's, when there is one. */
  neighbourMedia?: Record<string, number>;
  /** The HTTP neighbour's fetches by the protocol of its connection. */
  httpNeighbour?: Record<string, number>;
}

/** Counts of each value. */
export function countBy(values: Iterable<string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

/** `h2 × 52`, `http/1.1 × 40, h2 × 1`: a protocol count as text ('—' when empty). */
export function protocolText(counts: Record<string, number> | undefined): string {
  const entries = Object.entries(counts ?? {});
  return entries.length === 0 ? '—' : entries.map(([p, n]) => `${p || '(none)'} × ${n}`).join(', ');
}

export interface TcpNeighbourResult {
  /** ms since the epoch. */
  startedAt: number;
  seconds: number;
  meanMbps: number;
  retransmits: number;
  intervals: Array<{ t: number; mbps: number }>;
  congestionControl: string;
}

/** The trace a run's downlink followed (trace-driven bottleneck). */
export interface RunTrace {
  /** family/name, unique in the bench. */
  id: string;
  name: string;
  family: string;
  file: string;
  format: string;
  /** Mean capacity of one pass of the trace as the file has it, Mbit/s. */
  meanMbps: number;
  /** Mean capacity over the session's first `durationSeconds` (looped), Mbit/s; with a scale, of the scaled trace. */
  sessionMeanMbps: number;
  /** `--trace-scale`: every rate of the file × this (absent: as the file has it). */
  scale?: number;
  /** The delay line's trace id (its stats lines carry it), its clock start (ms since the epoch, at the play request), its opportunities and period. */
  linkId: number;
  startedAt: number;
  opportunities: number;
  periodMs: number;
}

export interface RawRun {
  arm: Arm;
  neighbour: Neighbour;
  /** 1-based run number within this arm × neighbour. */
  index: number;
  /** The buffer target the players had (absent: their own defaults, or results from before it was recorded). */
  bufferSeconds?: number;
  cc: string;
  /** What served the media: the origin itself (`none`) or an edge in front of it. */
  edge: Edge;
  /** ms since the epoch when the session ended (collection time). */
  endedAt: number;
  page: PageState;
  neighbourPage?: PageState;
  /** The game-stream neighbour: both pages' records and clocks. */
  game?: GameRun;
  /** /proc/loadavg (1, 5, 15 min) as the session started and ended: the shared machine's contention. */
  loadAvg?: { start: number[]; end: number[] };
  queue: QueueSample[];
  rateMbps: number;
  /** [receive time ms since epoch, seq, one-way delay ms] */
  udp?: Array<[number, number, number]>;
  udpSent?: number;
  /** The UDP neighbour's rate in this run, Mbit/s (absent in older results: 5). */
  udpRateMbps?: number;
  tcp?: TcpNeighbourResult;
  http?: HttpFetch[];
  /** The origin's delivery records. Behind an edge they describe the edge's unpaced backend fetches, not the client's connection. */
  records: DeliveryRecord[];
  errors: string[];
  /** HTTP asked for and used; absent in results from before it was recorded (all plain HTTP/1.1). */
  protocol?: RunProtocol;
  /** With a trace-driven bottleneck: the trace, and the link's stats lines while it ran (every 100 ms; also on the home link). */
  trace?: RunTrace;
  link?: LinkSample[];
  /** The home link's queue (`--link home`): the downlink was the delay line's constant link with it. */
  homeQueue?: HomeQueue;
  /** The game's packets through the router, from the delay line's RTP log (game/net-delay.ts). */
  gameNet?: GameNetRun;
  /** The delay line's RTP log lines of this run: the bench writes them beside the run's JSON (runs/<tag>.rtp.log), not into it. */
  rtpLog?: string;
}

export interface NeighbourMetric {
  /** What the number is, with its unit. */
  name: string;
  unit: string;
  p50?: number;
  p95?: number;
  mean?: number;
  /** Sample count behind the distribution. */
  samples: number;
  extra?: Record<string, number | undefined>;
}

/**
 * How closely the trace-driven link followed its trace in one run, from the delay line's own
 * counters: the capacity the trace offered (1500 B per opportunity, used or not) against the bytes
 * of the packets that left, over the session and per second.
 */
export interface LinkAchieved {
  seconds: number;
  traceMbps: number;
  releasedMbps: number;
  /** released / capacity over the session (below 1 when the video and its neighbour leave the link idle). */
  utilization: number;
  /** Per 1-s bin: the trace's capacity and what left; `saturated` when every 100-ms sample in it had a backlog. */
  perSecond: Array<{ t: number; traceMbps: number; releasedMbps: number; saturated: boolean }>;
  /** Saturated bins and their released / capacity: 1 when the link delivers the trace whenever it has packets. */
  saturatedBins: number;
  saturatedRatioMedian?: number;
  saturatedRatioMin?: number;
  saturatedRatioMax?: number;
  drops: number;
  /** Latest a packet left after its delivery opportunity (the writer thread woke late), µs: max and p99 of the 100-ms maxima. */
  releaseLateMaxUs: number;
  releaseLateP99Us?: number;
  /** The downlink tbf behind the link (set far above the trace): what it sent (IP + 14 B Ethernet header per packet), its largest backlog and its drops. */
  tbfSentMbps?: number;
  tbfBacklogMaxBytes?: number;
  tbfDrops?: number;
}

export function linkAchieved(run: RawRun): LinkAchieved | undefined {
  const tr = run.trace;
  const samples = (run.link ?? []).filter((s) => s.t <= run.endedAt).sort((a, b) => a.t - b.t);
  if (!tr || samples.length < 2) return undefined;
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const seconds = (last.t - first.t) / 1000;
  const mbps = (bytes: number, s: number) => (s > 0 ? (bytes * 8) / (s * 1e6) : 0);
  const bins = new Map<number, { cap: number; rel: number; dt: number; saturated: boolean }>();
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    const k = Math.floor((b.t - tr.startedAt - 1e-6) / 1000);
    const bin = bins.get(k) ?? { cap: 0, rel: 0, dt: 0, saturated: true };
    bin.cap += b.capB - a.capB;
    bin.rel += b.relB - a.relB;
    bin.dt += (b.t - a.t) / 1000;
    bin.saturated &&= a.backlogB > 0 && b.backlogB > 0;
    bins.set(k, bin);
  }
  const perSecond = [...bins.entries()]
    .sort((x, y) => x[0] - y[0])
    // Whole seconds only: the first and last bins are partly outside the session.
    .filter(([, b]) => b.dt > 0.95)
    .map(([k, b]) => ({ t: k, traceMbps: mbps(b.cap, b.dt), releasedMbps: mbps(b.rel, b.dt), saturated: b.saturated && b.cap > 0 }));
  const ratios = perSecond.filter((b) => b.saturated).map((b) => b.releasedMbps / b.traceMbps);
  const tc = run.queue.filter((q) => q.t >= first.t && q.t <= last.t);
  const tcSeconds = tc.length > 1 ? (tc.at(-1)!.t - tc[0]!.t) / 1000 : 0;
  const cap = last.capB - first.capB;
  return {
    seconds,
    traceMbps: mbps(cap, seconds),
    releasedMbps: mbps(last.relB - first.relB, seconds),
    utilization: cap > 0 ? (last.relB - first.relB) / cap : 0,
    perSecond,
    saturatedBins: ratios.length,
    saturatedRatioMedian: quantile(ratios, 0.5),
    saturatedRatioMin: ratios.length ? Math.min(...ratios) : undefined,
    saturatedRatioMax: ratios.length ? Math.max(...ratios) : undefined,
    drops: last.drops,
    releaseLateMaxUs: Math.max(...samples.map((s) => s.lateMaxUs)),
    releaseLateP99Us: quantile(
      samples.map((s) => s.lateMaxUs),
      0.99,
    ),
    tbfSentMbps: tcSeconds > 0 ? mbps(tc.at(-1)!.sentBytes - tc[0]!.sentBytes, tcSeconds) : undefined,
    tbfBacklogMaxBytes: tc.length ? Math.max(...tc.map((q) => q.backlogBytes)) : undefined,
    tbfDrops: tc.length > 1 ? tc.at(-1)!.drops - tc[0]!.drops : undefined,
  };
}

/** Rendered quality changes after the first rendered quality, up to `endAt`. */
export function qualitySwitches(p: PageState, endAt: number): number {
  const qs = p.qualities.filter((q) => q.t <= endAt).sort((a, b) => a.t - b.t);
  let n = 0;
  for (let i = 1; i < qs.length; i++) if (qs[i]!.kbps !== qs[i - 1]!.kbps) n++;
  return n;
}

export interface RunMetrics {
  arm: Arm;
  neighbour: Neighbour;
  index: number;
  /** The players' buffer target in this run (RawRun.bufferSeconds). */
  bufferSeconds?: number;
  /** Pensieve's linear QoE over the segments the session played (qoeLin of playedSegments). */
  qoeLin?: number;
  /** The UDP neighbour's one-way delay in the first and the second half of the session (play request to end). */
  udpFirstHalf?: { p50?: number; p95?: number };
  udpSecondHalf?: { p50?: number; p95?: number };
  /** With traces: the trace (family/name) and its family. */
  trace?: string;
  family?: string;
  /** Mean capacity the trace offered over the session, Mbit/s (scaled, with `--trace-scale`). */
  traceMbps?: number;
  /** `--trace-scale` of the run's trace (absent: the file's own rates). */
  traceScale?: number;
  qualitySwitches?: number;
  /** Stalled time / time since playback started. */
  rebufferRatio?: number;
  link?: Omit<LinkAchieved, 'perSecond'>;
  startupDelayMs?: number;
  rebufferCount: number;
  rebufferSeconds: number;
  meanBitrateKbps?: number;
  /** Σ bytes / Σ download time over video media segments = the time-weighted mean of chunk throughputs. */
  chunkThroughputMbps?: number;
  videoChunks: number;
  /** Video segments fetched again (videoRefetches); undefined where the origin's records cannot tell. */
  videoRefetches?: number;
  /** Median of the server's smoothed RTT of the video segments (TCP_INFO; where from: videoRttSource). */
  videoRttMs?: number;
  videoRttSource?: VideoRttSource;
  videoMinRttMs?: number;
  /** Median pace the server applied to video segments, kbps (0 = unpaced). */
  medianPaceKbps?: number;
  queueDelayP50Ms?: number;
  queueDelayP95Ms?: number;
  bottleneckDrops?: number;
  neighbourMetric?: NeighbourMetric;
  /** The game-stream neighbour, from the play request to the end, and alone (its warm-up before the play request). */
  game?: GameMetrics;
  gameAlone?: GameMetrics;
  /** The game's per-frame delay in the network (the router's log), with the video and alone. */
  gameNet?: GameNetMetrics;
  gameNetAlone?: GameNetMetrics;
  homeQueue?: HomeQueue;
  /** 1-min load average as the session ended. */
  loadAvg1?: number;
  errors: number;
  /** The main session's media requests by Resource Timing nextHopProtocol (e.g. { h2: 52 }); undefined when not recorded. */
  mediaProtocols?: Record<string, number>;
}

/** Whether a run's metrics are those of this raw run (same arm, neighbour, index, trace and buffer target). */
export function sameRun(r: RawRun, m: RunMetrics): boolean {
  return (
    r.arm === m.arm && r.neighbour === m.neighbour && r.index === m.index && r.trace?.id === m.trace && r.bufferSeconds === m.bufferSeconds
  );
}

/** The items in the first and in the second half of [from, to] by their time (the midpoint goes to the second); others in neither. */
export function sessionHalves<T>(items: readonly T[], time: (item: T) => number, from: number, to: number): [T[], T[]] {
  const mid = (from + to) / 2;
  const inside = items.filter((x) => time(x) >= from && time(x) <= to);
  return [inside.filter((x) => time(x) < mid), inside.filter((x) => time(x) >= mid)];
}

/** Pensieve's weight of a rebuffered second in its linear QoE (Mao et al., SIGCOMM 2017). */
export const QOE_LIN_REBUFFER_PENALTY = 4.3;

/**
 * Pensieve's linear QoE of a session: Σ bitrate (Mbps) − 4.3 × rebuffer (s) − Σ |Δ bitrate| (Mbps)
 * over its segments in play order; a segment played in part counts its `share` of its bitrate.
 */
export function qoeLin(segments: ReadonlyArray<{ kbps: number; share?: number }>, rebufferSeconds: number): number {
  let q = 0;
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    q += ((s.share ?? 1) * s.kbps) / 1000;
    if (i > 0) q -= Math.abs(s.kbps - segments[i - 1]!.kbps) / 1000;
  }
  return q - QOE_LIN_REBUFFER_PENALTY * rebufferSeconds;
}

/**
 * The video segments a session played, as the viewer saw them: media time runs from the first
 * `playing` to `endAt` except while stalled, each `segmentSeconds` of it one segment, at the quality
 * rendered when its playback began; the last, played in part, with its share. Empty before playback.
 */
export function playedSegments(p: PageState, endAt: number, segmentSeconds: number): Array<{ kbps: number; share: number }> {
  const qs = p.qualities.filter((q) => q.t <= endAt).sort((a, b) => a.t - b.t);
  if (p.startedAt === undefined || qs.length === 0 || !(segmentSeconds > 0)) return [];
  const startedAt = p.startedAt;
  const stalls = closeStalls(p.stalls, endAt)
    .filter((s) => s.end > startedAt)
    .sort((a, b) => a.start - b.start);
  const playedS =
    (endAt - startedAt - totalStallTime(stalls.map((s) => ({ start: Math.max(s.start, startedAt), end: Math.min(s.end, endAt) })))) / 1000;
  // The wall time at which playback reaches media time `m` (s): the stalls before it push it later.
  const wallAt = (m: number): number => {
    let t = startedAt + m * 1000;
    for (const s of stalls) if (s.start <= t) t += s.end - Math.max(s.start, startedAt);
    return t;
  };
  const qualityAt = (t: number): number => (qs.findLast((q) => q.t <= t) ?? qs[0]!).kbps;
  const out: Array<{ kbps: number; share: number }> = [];
  for (let k = 0; k < playedS / segmentSeconds - 1e-9; k++)
    out.push({ kbps: qualityAt(wallAt(k * segmentSeconds)), share: Math.min(1, playedS / segmentSeconds - k) });
  return out;
}

export function startupDelayMs(p: PageState): number | undefined {
  return p.startedAt === undefined ? undefined : p.startedAt - p.playRequestedAt;
}

export function rebuffers(p: PageState, endAt: number): { count: number; seconds: number } {
  return { count: p.stalls.length, seconds: totalStallTime(closeStalls(p.stalls, endAt)) / 1000 };
}

/** Time-weighted mean of the rendered video bitrate from playback start to `endAt`. */
export function meanBitrateKbps(p: PageState, endAt: number): number | undefined {
  if (p.startedAt === undefined) return undefined;
  const qs = p.qualities.slice().sort((a, b) => a.t - b.t);
  if (qs.length === 0) {
    return mean(p.chunks.filter((c) => c.mediaType === 'video').map((c) => c.bitrateKbps));
  }
  let weighted = 0;
  let total = 0;
  for (let i = 0; i < qs.length; i++) {
    const q = qs[i]!;
    const from = Math.max(q.t, p.startedAt);
    const to = Math.min(qs[i + 1]?.t ?? endAt, endAt);
    if (to > from) {
      weighted += q.kbps * (to - from);
      total += to - from;
    }
  }
  return total > 0 ? weighted / total : qs[qs.length - 1]?.kbps;
}

export function videoChunks(p: PageState): PageState['chunks'] {
  return p.chunks.filter((c) => c.mediaType === 'video' && c.end > c.start && c.bytes > 0);
}

export function chunkThroughputMbps(p: PageState): number | undefined {
  const cs = videoChunks(p);
  const bytes = cs.reduce((s, c) => s + c.bytes, 0);
  const ms = cs.reduce((s, c) => s + (c.end - c.start), 0);
  return ms > 0 ? (bytes * 8) / (ms * 1000) : undefined;
}

/**
 * Where a run's video RTT comes from: `records`, the origin's TCP_INFO after each video segment's last
 * byte (its delivery records); `server-timing`, the `sammy-rtt` the server wrote into each video
 * response's headers, i.e. the smoothed RTT as the response started (Varnish: whole ms).
 */
export type VideoRttSource = 'records' | 'server-timing';

/**
 * The video flow's own RTT. Direct from the origin: its records, else its Server-Timing. Behind an
 * edge the origin's records describe the edge's backend hop (loopback), so only the edge's
 * Server-Timing describes the client's connection.
 */
export function videoRtt(run: RawRun): { rttMs?: number; minRttMs?: number; source?: VideoRttSource } {
  const videoPaths = videoChunks(run.page).map((c) => pathOf(c.url));
  const from = run.page.playRequestedAt;
  const isVideo = (path: string): boolean => videoPaths.includes(path);
  const recs =
    (run.edge ?? 'none') === 'none'
      ? run.records.filter((r) => r.startedAt >= from - 1000 && r.rttMs !== undefined && isVideo(r.path))
      : [];
  const fromRecords = quantile(
    recs.map((r) => r.rttMs as number),
    0.5,
  );
  const st = videoChunks(run.page).map((c) => c.server);
  const fromServerTiming = quantile(
    st.map((s) => s.rttMs ?? NaN),
    0.5,
  );
  return {
    rttMs: fromRecords ?? fromServerTiming,
    minRttMs: quantile(
      st.map((s) => s.minRttMs ?? NaN),
      0,
    ),
    source: fromRecords !== undefined ? 'records' : fromServerTiming !== undefined ? 'server-timing' : undefined,
  };
}

/**
 * Video segments fetched again after the play request: the fetches beyond the first of each segment
 * number, at whatever rung (a player that throws a segment away to fetch it at another rung, or
 * refetches its buffer after a step up). Each is a whole segment's bytes that queued at the bottleneck
 * and added no buffer. From the origin's delivery records, which see every request, aborted ones
 * included (the page's Resource Timing misses some of those). Undefined when the records cannot tell:
 * unread (the run's errors say why), behind an edge (a cache hit never reaches the origin) or next to a second video session (both
 * sessions fetch the same segments from the same origin).
 */
export function videoRefetches(run: RawRun): number | undefined {
  if ((run.edge ?? 'none') !== 'none' || run.neighbour === 'video') return undefined;
  // The records could not be read (run.ts notes why): no record is not no refetch.
  if (run.errors.some((e) => e.startsWith('records:'))) return undefined;
  // Video representations: those the page played as video or the player's CMCD called video, never audio ones.
  const reps = (type: 'video' | 'audio', ot: string) =>
    new Set([
      ...run.page.chunks.filter((c) => c.mediaType === type).map((c) => mediaSegmentOf(pathOf(c.url))?.representationId),
      ...run.records.filter((r) => r.objectType === ot).map((r) => mediaSegmentOf(r.path)?.representationId),
    ]);
  const audio = reps('audio', 'a');
  const video = new Set([...reps('video', 'v')].filter((rep) => rep !== undefined && !audio.has(rep)));
  const fetches = new Map<number, number>();
  for (const r of run.records) {
    const segment = mediaSegmentOf(r.path);
    if (!segment || !video.has(segment.representationId) || r.startedAt < run.page.playRequestedAt - 1000) continue;
    fetches.set(segment.number, (fetches.get(segment.number) ?? 0) + 1);
  }
  return [...fetches.values()].reduce((sum, n) => sum + n - 1, 0);
}

/** Time `bytes` take to drain at `rateMbps`, ms (a queue's delay). */
export function bytesToMs(bytes: number, rateMbps: number): number {
  return (bytes * 8) / (rateMbps * 1000);
}

export function queueDelayMs(sample: QueueSample, rateMbps: number): number {
  return bytesToMs(sample.backlogBytes, rateMbps);
}

/**
 * Samples of a run's neighbour metric: UDP one-way delays from the play request to the end, HTTP
 * response times of complete 200 responses, TCP per-second throughputs, the second session's
 * startup delay.
 */
export function neighbourSamples(run: RawRun): number[] {
  switch (run.neighbour) {
    case 'udp':
      return (run.udp ?? []).filter(([t]) => t >= run.page.playRequestedAt && t <= run.endedAt).map((r) => r[2]);
    case 'http':
      return (run.http ?? []).filter((f) => !f.cut && f.status === 200).map((f) => f.responseMs);
    case 'tcp':
      return run.tcp?.intervals.map((i) => i.mbps) ?? [];
    case 'video': {
      const d = run.neighbourPage ? startupDelayMs(run.neighbourPage) : undefined;
      return d === undefined ? [] : [d];
    }
    case 'game':
      return run.game ? gameLatencies(run.game, run.page.playRequestedAt, run.endedAt) : [];
    case 'none':
      return [];
  }
}

function neighbourMetric(run: RawRun): NeighbourMetric | undefined {
  const s = neighbourSamples(run);
  switch (run.neighbour) {
    case 'udp': {
      const received = run.udp?.length ?? 0;
      return {
        name: 'UDP one-way delay',
        unit: 'ms',
        p50: quantile(s, 0.5),
        p95: quantile(s, 0.95),
        mean: mean(s),
        samples: s.length,
        extra: { lossPercent: run.udpSent ? (100 * (run.udpSent - received)) / run.udpSent : undefined, rateMbps: run.udpRateMbps },
      };
    }
    case 'tcp':
      return {
        name: 'bulk TCP throughput',
        unit: 'Mbps',
        mean: run.tcp?.meanMbps,
        p50: quantile(s, 0.5),
        p95: quantile(s, 0.95),
        samples: s.length,
        extra: { retransmits: run.tcp?.retransmits, seconds: run.tcp?.seconds },
      };
    case 'http':
      return {
        name: 'HTTP 3 MB response time',
        unit: 'ms',
        p50: quantile(s, 0.5),
        p95: quantile(s, 0.95),
        mean: mean(s),
        samples: s.length,
      };
    case 'video':
      // One sample at most: the second session's startup delay, as it is.
      return { name: 'second session startup delay', unit: 'ms', mean: s[0], p50: s[0], samples: s.length };
    case 'game': {
      const g = run.game ? gameMetrics(run.game, run.page.playRequestedAt, run.endedAt) : undefined;
      return {
        name: 'game frame latency (glass to glass)',
        unit: 'ms',
        p50: g?.latencyP50Ms,
        p95: g?.latencyP95Ms,
        mean: g?.latencyMeanMs,
        samples: s.length,
        extra: { p99: g?.latencyP99Ms, over100Share: g?.over100Share, freezes: g?.freezes, receivedMbps: g?.receivedMbps },
      };
    }
    case 'none':
      return undefined;
  }
}

export function runMetrics(run: RawRun): RunMetrics {
  const p = run.page;
  const endAt = run.endedAt;
  const rb = rebuffers(p, endAt);
  const rtt = videoRtt(run);
  const window = { from: p.playRequestedAt, to: endAt };
  const q = run.queue.filter((s) => s.t >= window.from && s.t <= window.to);
  // With a trace the queue is the delay line's link: the wait its backlog means at the trace's coming opportunities.
  const linkSamples = (run.link ?? []).filter((s) => s.t >= window.from && s.t <= window.to);
  // On the home link likewise (for FQ-CoDel the whole backlog's wait: what a FIFO would mean, not what a sparse flow meets).
  const delays = run.trace || run.homeQueue ? linkSamples.map((s) => s.waitMs) : q.map((s) => queueDelayMs(s, run.rateMbps));
  const linkFirst = linkSamples[0];
  const linkLast = linkSamples[linkSamples.length - 1];
  const achieved = linkAchieved(run);
  const played = p.startedAt !== undefined ? (endAt - p.startedAt) / 1000 : undefined;
  const paces = videoChunks(p).map((c) => c.server.appliedPaceKbps ?? 0);
  const first = q[0];
  const last = q[q.length - 1];
  // Segments played, at the rendered quality; without a rendered quality no QoE.
  const segments = playedSegments(
    p,
    endAt,
    quantile(
      videoChunks(p).map((c) => c.segmentSeconds),
      0.5,
    ) ?? 4,
  );
  const udpHalves = run.neighbour === 'udp' && run.udp ? sessionHalves(run.udp, ([t]) => t, p.playRequestedAt, endAt) : undefined;
  const percentiles = (rows: Array<[number, number, number]>) => ({
    p50: quantile(
      rows.map((r) => r[2]),
      0.5,
    ),
    p95: quantile(
      rows.map((r) => r[2]),
      0.95,
    ),
  });
  return {
    arm: run.arm,
    neighbour: run.neighbour,
    index: run.index,
    ...(run.bufferSeconds !== undefined ? { bufferSeconds: run.bufferSeconds } : {}),
    ...(segments.length ? { qoeLin: qoeLin(segments, rb.seconds) } : {}),
    ...(udpHalves ? { udpFirstHalf: percentiles(udpHalves[0]), udpSecondHalf: percentiles(udpHalves[1]) } : {}),
    startupDelayMs: startupDelayMs(p),
    rebufferCount: rb.count,
    rebufferSeconds: rb.seconds,
    meanBitrateKbps: meanBitrateKbps(p, endAt),
    chunkThroughputMbps: chunkThroughputMbps(p),
    videoChunks: videoChunks(p).length,
    videoRefetches: videoRefetches(run),
    videoRttMs: rtt.rttMs,
    videoRttSource: rtt.source,
    videoMinRttMs: rtt.minRttMs,
    medianPaceKbps: quantile(paces, 0.5),
    queueDelayP50Ms: quantile(delays, 0.5),
    queueDelayP95Ms: quantile(delays, 0.95),
    bottleneckDrops: run.trace
      ? achieved?.drops
      : run.homeQueue
        ? linkFirst && linkLast
          ? linkLast.drops - linkFirst.drops
          : undefined
        : first && last
          ? last.drops - first.drops
          : undefined,
    ...(run.homeQueue ? { homeQueue: run.homeQueue } : {}),
    ...(run.gameNet ? { gameNet: gameNetFromRun(run.gameNet, p.playRequestedAt, endAt) } : {}),
    ...(run.gameNet && run.game?.flowingAt !== undefined
      ? { gameNetAlone: gameNetFromRun(run.gameNet, run.game.flowingAt + 2000, p.playRequestedAt) }
      : {}),
    neighbourMetric: neighbourMetric(run),
    ...(run.game ? { game: gameMetrics(run.game, p.playRequestedAt, endAt) } : {}),
    ...(run.game?.flowingAt !== undefined ? { gameAlone: gameMetrics(run.game, run.game.flowingAt + 2000, p.playRequestedAt) } : {}),
    ...(run.loadAvg ? { loadAvg1: run.loadAvg.end[0] } : {}),
    ...(run.trace ? { trace: run.trace.id, family: run.trace.family, traceMbps: run.trace.sessionMeanMbps } : {}),
    ...(run.trace?.scale !== undefined ? { traceScale: run.trace.scale } : {}),
    qualitySwitches: qualitySwitches(p, endAt),
    rebufferRatio: played && played > 0 ? rb.seconds / played : undefined,
    ...(achieved ? { link: (({ perSecond: _, ...rest }) => rest)(achieved) } : {}),
    errors: run.errors.length + p.errors.length,
    mediaProtocols: run.protocol?.media,
  };
}

/** Session throughput in bins: each media chunk's bytes spread evenly over its download time. */
export function throughputSeries(p: PageState, binMs = 500): Array<{ t: number; mbps: number }> {
  const t0 = p.playRequestedAt;
  const end = Math.max(t0, ...p.chunks.map((c) => c.end));
  const bins = new Array<number>(Math.ceil((end - t0) / binMs) + 1).fill(0);
  for (const c of p.chunks) {
    const dur = Math.max(1, c.end - c.start);
    for (let b = Math.floor((c.start - t0) / binMs); b <= Math.floor((c.end - t0) / binMs); b++) {
      if (b < 0 || b >= bins.length) continue;
      const overlap = Math.min(c.end, t0 + (b + 1) * binMs) - Math.max(c.start, t0 + b * binMs);
      if (overlap > 0) bins[b]! += (c.bytes * overlap) / dur;
    }
  }
  return bins.map((bytes, b) => ({ t: (b * binMs) / 1000, mbps: (bytes * 8) / (binMs * 1000) }));
}

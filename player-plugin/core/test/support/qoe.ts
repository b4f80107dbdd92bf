/** What a viewer and the network see of one simulated session. */
import type { PlayedPart, SimulationConfig, SimulationResult } from './session-simulator.js';

export interface Qoe {
  /** Mean bitrate over every segment, kbps. */
  meanBitrateKbps: number;
  /** Rebuffering time per second of media. */
  rebufferRatio: number;
  stalls: number;
  /** Bitrate changes between consecutive segments. */
  switches: number;
  startupSeconds: number;
  /** Mean chunk throughput (segment bits over request-to-last-byte time), kbps. */
  chunkKbps: number;
  /**
   * Of the playing phase's transfer time, the share during which the pace was below the link's
   * capacity (the bottleneck had room to spare); NaN when nothing was paced.
   */
  pacedBelowCapacity: number;
  /**
   * Neighbour proxy: the share of the session's wall time during which the video transferred at
   * the link's capacity (unpaced, or paced at or above it) — when its TCP keeps the bottleneck's
   * queue filled in front of a neighbour. Paced below the link, the queue drains.
   */
  saturatedShare: number;
  /**
   * Neighbour proxy: the queueing delay a neighbour's packet meets at the bottleneck, ms, median
   * and 95th percentile over the session's wall time (`neighbourDelay`).
   */
  queueP50Ms: number;
  queueP95Ms: number;
}

/**
 * The lab's bottleneck queue (lab/src/config.ts: 4 × the paper's BDP of 40 Mbit/s × 5 ms):
 * 100 kB, drop-tail, kbit.
 */
export const QUEUE_KBITS = 800;

/**
 * The bottleneck's queue in a fluid model, sampled every 10 ms of the session: it fills at the
 * video's sending rate above the link's capacity and drains below it, within [0, QUEUE_KBITS].
 * Unpaced, TCP fills it to the drop (a congestion window grows until loss); paced at p, TCP
 * sends at p. Between downloads it drains. A neighbour's packet waits queue / capacity. Returns
 * those waits, ms, sorted. `queueKbits`: the queue's size (the home link's, issue 40: 2 × BDP or 300 ms).
 */
export function neighbourDelaysMs(
  result: SimulationResult,
  config: Pick<SimulationConfig, 'link' | 'linkKbps' | 'latencyMs'>,
  queueKbits: number = QUEUE_KBITS,
): Float64Array {
  const dt = 0.01;
  const n = Math.floor(result.sessionSeconds / dt);
  const out = new Float64Array(n);
  const capacity = (t: number) => (config.link ? config.link.capacityKbps(t) : config.linkKbps);
  let q = 0;
  let k = 0;
  const transfers = result.segments.map((s) => ({
    from: s.startedAtSeconds + config.latencyMs / 1000,
    to: s.startedAtSeconds + s.downloadSeconds,
    pace: s.paceKbps ?? Infinity,
  }));
  for (let i = 0; i < n; i++) {
    const t = i * dt;
    while (k < transfers.length && transfers[k]!.to <= t) k++;
    const c = capacity(t);
    const active = k < transfers.length && transfers[k]!.from <= t;
    const send = active ? transfers[k]!.pace : 0;
    q = send === Infinity ? queueKbits : Math.min(queueKbits, Math.max(0, q + (send - c) * dt));
    out[i] = c > 0 ? (q / c) * 1000 : q > 0 ? Infinity : 0;
  }
  return out.sort();
}

function pacedShare(playing: SimulationResult['segments']): number {
  const transfer = playing.reduce((sum, s) => sum + s.downloadSeconds, 0);
  return playing.some((s) => s.paceKbps !== undefined) ? playing.reduce((sum, s) => sum + s.pacedSeconds, 0) / transfer : NaN;
}

/** A media segment's bitrate as played, kbps: its parts weighted by the share of it each plays. */
function playedKbps(parts: readonly PlayedPart[]): number {
  return parts.reduce((sum, p, i) => sum + p.bitrateKbps * ((parts[i + 1]?.fromFraction ?? 1) - p.fromFraction), 0);
}

/**
 * A session's figures. With `sessionSeconds` (a session of fixed wall time, as the lab's) the
 * viewer's figures — bitrate, switches — are those of the segments played by its end, and the
 * rebuffer ratio is over the time since playback started; else over every segment downloaded.
 */
export function qoe(
  result: SimulationResult,
  config: Pick<SimulationConfig, 'segmentSeconds' | 'sessionSeconds' | 'link' | 'linkKbps' | 'latencyMs'>,
): Qoe {
  const all = result.segments;
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const watched = (config.sessionSeconds ?? result.sessionSeconds) - result.startupSeconds;
  const played =
    config.sessionSeconds === undefined
      ? all.length
      : Math.max(1, Math.ceil((watched - result.stallSeconds) / config.segmentSeconds - 1e-9));
  // What the viewer saw: each media segment's parts (a fast switch's refetch replaces the rest of its segment).
  const segments = result.played.slice(0, played);
  const parts = segments.flat();
  const delays = config.sessionSeconds === undefined ? new Float64Array() : neighbourDelaysMs(result, config);
  return {
    meanBitrateKbps: mean(segments.map(playedKbps)),
    rebufferRatio: result.stallSeconds / (config.sessionSeconds === undefined ? all.length * config.segmentSeconds : watched),
    stalls: result.stalls,
    switches: parts.filter((p, i) => i > 0 && p.bitrateKbps !== parts[i - 1]!.bitrateKbps).length,
    startupSeconds: result.startupSeconds,
    chunkKbps: mean(all.map((s) => s.throughputKbps)),
    pacedBelowCapacity: pacedShare(all.filter((s) => s.phase === 'playing')),
    saturatedShare: all.reduce((sum, s) => sum + s.saturatedSeconds, 0) / result.sessionSeconds,
    queueP50Ms: delays[Math.floor(delays.length / 2)] ?? NaN,
    queueP95Ms: delays[Math.floor(delays.length * 0.95)] ?? NaN,
  };
}

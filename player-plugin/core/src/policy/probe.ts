/**
 * Probe, hold and refetch, as a pure reducer (like phase.ts): which video segments measure the
 * link (probes, paced by the schedule alone), which are held below the schedule at a share of
 * what the link was measured at (hold.ts), and which go unheld because a step up made the player
 * fetch them again (refetches add no buffer). A held segment the link held back measures the link
 * too: the held pace follows the link down between probes (the dips below a held pace are what
 * fill the neighbour's queue), and only a probe sees it rise. State and event in, state
 * out; a request's pace comes from `paceRequest`, which takes the schedule's pace computed once.
 */
import { roundRtpKbps } from 'sammy-pacing-protocol';
import type { SammyParameters } from '../config.js';
import { requestPaceKbps } from './decide.js';
import { holdLimits } from './hold.js';
import { appendBounded, harmonicMeanKbps } from './throughput.js';

export interface ProbeState {
  /** Chunk throughputs of the probes (video segments paced by the schedule alone) and of the held segments the link held back, kbps. */
  readonly probeKbps: readonly number[];
  /** The latest of those was held back by the link, not by its pace: they measure the link's capacity. */
  readonly linkLimited: boolean;
  /** The latest video download's chunk throughput when the link held it back (unpaced, or below its pace), kbps; else undefined. */
  readonly linkKbps: number | undefined;
  /** Video requests held since the last probe. */
  readonly heldInARow: number;
  /** The latest probe found the same link below the schedule and nothing changed since: probes go at twice the interval. */
  readonly spaced: boolean;
  /** Video requests still to go unheld: the refetches a step up causes, and the one after. */
  readonly unheldLeft: number;
}

export const INITIAL_PROBE_STATE: ProbeState = Object.freeze({
  probeKbps: [],
  linkLimited: false,
  linkKbps: undefined,
  heldInARow: 0,
  spaced: false,
  unheldLeft: 0,
});

/**
 * The last two of the link's measurements (`probeKbps`) within this ratio of each other: a steady
 * link, where the fill cap applies (hold.ts). Loose enough to take a session's first sample (a small
 * rung, its request's latency a large part of it: 25 against 37 Mbit/s on the home link); the
 * volatile LTE shapes, swinging by 5 Mbit/s within seconds, mostly fail it.
 */
const STEADY_RATIO = 1.5;

/** A probe measured at or above this share of its pace was held back by its pace (overhead and latency take the rest), not by the link. */
const PACE_LIMITED_SHARE = 0.8;

export type ProbeEvent =
  /** The video rung changed; `refetchSeconds`: the buffer the player fetches again at the new rung (undefined: none). */
  | { type: 'switch'; refetchSeconds: number | undefined; segmentSeconds: number | undefined }
  /** A finished video download of a request that was `held` or not. */
  | { type: 'sample'; held: boolean; throughputKbps: number; paceRateKbps: number | undefined };

/**
 * The probes' estimate of the link, kbps: over as many of their samples as span the estimate's
 * window of segments (5 / 3 → 2), so that a rise shows as soon as in every sample's estimate.
 */
export function probeEstimateKbps(state: ProbeState, p: Readonly<SammyParameters>): number | undefined {
  return harmonicMeanKbps(state.probeKbps, Math.ceil(p.throughputWindow / p.probeInterval));
}

export function nextProbeState(state: ProbeState, event: ProbeEvent, p: Readonly<SammyParameters>): ProbeState {
  if (event.type === 'switch') {
    const seg = event.segmentSeconds!;
    // Every refetched segment, and the one after it, goes as fast as the schedule allows.
    const unheldLeft = event.refetchSeconds !== undefined && seg > 0 ? Math.ceil(event.refetchSeconds / seg - 1e-9) + 1 : state.unheldLeft;
    return { ...state, spaced: false, unheldLeft };
  }
  // Below PACE_LIMITED_SHARE of its pace (or unpaced) the link, not the pace, set its speed.
  const linkLimited = !(event.throughputKbps >= PACE_LIMITED_SHARE * event.paceRateKbps!);
  const linkKbps = linkLimited ? event.throughputKbps : undefined;
  // A held segment at its pace says only that the link carries it.
  if (event.held && !linkLimited) return { ...state, linkKbps };
  // A probe measures the link or its own pace; a held segment the link held back, the link fallen
  // below the held pace: the next ones are held at a share of it (a probe next would fill the
  // queue in the dip), and probes are no longer spaced out.
  return {
    ...state,
    probeKbps: appendBounded(state.probeKbps, event.throughputKbps, p.sessionSampleLimit),
    linkLimited,
    linkKbps,
    spaced: linkLimited && !event.held,
  };
}

export interface ProbeRequest {
  video: boolean;
  /** The schedule's pace, kbps, unrounded; undefined: not paced (off, initial phase, no ladder). */
  scheduleKbps: number | undefined;
  /** The video rung the pace is based on, and whether it is below the top. */
  rung: { kbps: number; belowTop: boolean } | undefined;
  bufferLevelSeconds: number;
  /** Buffer level counted as full for the pace, seconds. */
  fullBufferSeconds: number;
  /** The fetched video rung + the top audio bitrate, kbps; undefined before any video request. */
  fetchedBaseKbps: number | undefined;
  /** What the schedule's pace carries at 1×, kbps (the rung it is based on + the top audio bitrate): the fill cap's need (hold.ts). */
  paceBaseKbps?: number;
}

/**
 * A request's `rtp` (kbps, rounded to 100; undefined: unpaced): a probe or a refetch goes at the
 * schedule (a refetch at least at the link's rate the probes measured: until it arrives the
 * viewer watches the rung below; at that rate when the link capped the latest of them, issue 39:
 * a pace above the link paces nothing); any other request is held (hold.ts). `held`: below the schedule.
 */
export function paceRequest(
  state: ProbeState,
  request: ProbeRequest,
  p: Readonly<SammyParameters>,
): { state: ProbeState; paceRateKbps: number | undefined; held: boolean } {
  const { video, scheduleKbps, rung } = request;
  const refetch = video && state.unheldLeft > 0;
  const probeKbps = probeEstimateKbps(state, p);
  // While probes keep finding the same link below the schedule, they space out to twice the
  // interval — unless below the top they say the link cannot carry the next rung: then only a
  // probe can see it rise.
  const awaitingRise = rung?.belowTop && !(probeKbps! >= Math.max(p.stepUpFactor, 1) * rung.kbps);
  const probe = refetch || (video && state.heldInARow >= (p.probeInterval - 1) * (state.spaced && !awaitingRise ? 2 : 1));
  // A steady link: its last two measurements within STEADY_RATIO (fewer than two: NaN, not steady).
  const [a, b] = state.probeKbps.slice(-2);
  const steady = a! / b! < STEADY_RATIO && b! / a! < STEADY_RATIO;
  const hold = holdLimits({ ...request, probe, steady, capacityKbps: state.linkLimited ? probeKbps : undefined, parameters: p });
  // (0 when no probe has measured the link yet.)
  const refetchKbps = (refetch && probeKbps! / (1 - p.overhead)) || 0;
  // A refetch on a link measured capping the downloads goes at that link's rate (faster only
  // queues), and like a held segment measures its pace, not the link: the probes alone see a rise.
  const atLink = refetch && state.linkLimited;
  const paceRateKbps = requestPaceKbps(scheduleKbps, hold, refetchKbps, atLink);
  const held = scheduleKbps !== undefined && (atLink || paceRateKbps! < roundRtpKbps(scheduleKbps));
  const next = { ...state, unheldLeft: refetch ? state.unheldLeft - 1 : state.unheldLeft };
  // (Refetches, held or not, restart the count: the probe comes probeInterval requests after them.)
  return { state: video ? { ...next, heldInARow: held && !refetch ? state.heldInARow + 1 : 0 } : next, paceRateKbps, held };
}

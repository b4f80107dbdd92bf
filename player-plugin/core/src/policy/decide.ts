import type { SammyParameters } from '../config.js';
import { selectBitrateKbps } from './bitrate.js';
import { roundRtpKbps } from 'sammy-pacing-protocol';
import { heldPaceKbps, type HoldLimits } from './hold.js';
import { paceRateKbps, type PaceRateInput } from './pace-rate.js';
import type { MediaKind, Phase } from './types.js';

export interface BitrateDecisionInput {
  phase: Phase;
  mediaType: MediaKind;
  /** This media type's ladder, kbps. */
  bitratesKbps: readonly number[];
  bufferLevelSeconds: number;
  /** Estimate from this session's samples, kbps. */
  sessionEstimateKbps: number | undefined;
  /** Estimate from initial-phase samples only (this and earlier sessions), kbps. */
  initialEstimateKbps: number | undefined;
  /** The latest video download's chunk throughput when the link held it back, kbps (`ProbeState.linkKbps`); video only. */
  linkThroughputKbps?: number;
  /** Estimate from this session's probes (segments paced by the schedule alone), kbps: what a step up goes by once playing. */
  stepUpEstimateKbps?: number;
  /** The rung this media type fetched last in this session, kbps: stepping above it needs `stepUpFactor`. */
  currentBitrateKbps?: number;
  /** Duration of this media type's segments, seconds (from its last download); unknown: undefined. */
  segmentSeconds?: number;
  /** The buffer level, seconds, from which a step up makes the player refetch its buffer (bitrate.ts); undefined: never. */
  stepUpRefetchSeconds?: number;
  parameters: Readonly<SammyParameters>;
}

/** A bitrate choice with the inputs it was made from. */
export interface BitrateChoice {
  mediaType: MediaKind;
  phase: Phase;
  bitrateKbps: number;
  /** The estimate the choice used, kbps; undefined: none yet (video then starts from `initialVideoBitrateKbps`). */
  estimateKbps: number | undefined;
  /** The buffer level the choice used, seconds. */
  bufferLevelSeconds: number;
}

/**
 * Below this buffer level, seconds, the rule goes by the latest video download the link held
 * back when it is below the session's estimate: a stall is near, and the link of the next few
 * seconds is the one just measured more than the mean of the last five segments (README, "The
 * evidence": volatile links).
 */
export const SHALLOW_BUFFER_SECONDS = 8;

/**
 * In the initial phase the estimate comes only from initial-phase samples (never paced ones,
 * which would drag the first picks of later sessions down: paper Fig. 6); once playing, from
 * this session's recent samples, paced or not — pacing keeps them above the Eq. 1 line — or at a
 * shallow buffer the latest the link held back, when lower (never a paced one that kept its
 * pace: no spiral). With no estimate at all, video starts where the player itself would (issue:
 * the lowest rung cost the first segment's quality for nothing).
 */
export function decideBitrate(input: BitrateDecisionInput): BitrateChoice {
  const { phase, mediaType, bufferLevelSeconds, sessionEstimateKbps: session, linkThroughputKbps: link } = input;
  const initial = phase === 'initial';
  const estimateKbps = initial
    ? input.initialEstimateKbps
    : bufferLevelSeconds < SHALLOW_BUFFER_SECONDS && link! < session!
      ? link
      : session;
  // β, the look-ahead and the step-up factor from the parameters; ladder, buffer and current rung from the input.
  const bitrateKbps = selectBitrateKbps({
    ...input.parameters,
    ...input,
    estimateKbps,
    stepUpEstimateKbps: initial ? undefined : input.stepUpEstimateKbps,
    fallbackBitrateKbps: mediaType === 'video' ? input.parameters.initialVideoBitrateKbps : undefined,
  });
  return { mediaType, phase, bitrateKbps, estimateKbps, bufferLevelSeconds };
}

export interface PaceDecisionInput {
  phase: Phase;
  bufferLevelSeconds: number;
  /** Buffer level the pace counts as full, seconds (`fullBufferSeconds`). */
  fullBufferSeconds: number;
  /** What the pace carries at 1×, kbps: the video rung it is based on (`paceRungKbps`) + the top audio bitrate. */
  paceBaseKbps: number;
  /** That rung is below the top of the ladder (paceBase 'next-rung'): the schedule's largest multiplier applies. */
  belowTop?: boolean;
  /** A held request (`probeInterval`): the cap and the floor of its pace (`holdLimits`). */
  hold?: HoldLimits;
  /**
   * A refetch (what a step up makes the player download again): paced at least at this, kbps, the
   * link's rate on the wire as the probes measured it. Refetched media adds no buffer, and until it
   * arrives the viewer watches the rung below (README, "The evidence").
   */
  refetchKbps?: number;
  /** A refetch on a link measured capping the downloads: paced at `refetchKbps` exactly (a pace above the link paces nothing). */
  atLink?: boolean;
  parameters: Readonly<SammyParameters>;
}

/** The schedule's pace, kbps, unrounded (pace-rate.ts); undefined: nothing is paced in the initial phase or without a pace base. */
export function schedulePaceKbps(phase: Phase, input: PaceRateInput): number | undefined {
  return phase === 'initial' || !(input.paceBaseKbps > 0) ? undefined : paceRateKbps(input);
}

/**
 * A request's `rtp` from the schedule's pace (kbps, rounded to 100; undefined: unpaced): held
 * (hold.ts), lifted to a refetch's rate, or at the link. The one pace formula: the session runs
 * it through probe.ts's `paceRequest`, and `decidePace` (the decision bench) through this.
 */
export function requestPaceKbps(
  scheduleKbps: number | undefined,
  hold: HoldLimits | undefined,
  refetchKbps = 0,
  atLink?: boolean,
): number | undefined {
  return scheduleKbps === undefined
    ? undefined
    : roundRtpKbps(atLink ? refetchKbps : Math.max(hold ? heldPaceKbps(scheduleKbps, hold) : scheduleKbps, refetchKbps));
}

/** The `rtp` for a request (kbps, rounded to 100), or undefined: nothing is paced in the initial phase. */
export function decidePace(input: PaceDecisionInput): number | undefined {
  // Parameters first, then the input (no key in both): V8 then clones the frozen parameters on its fast path.
  return requestPaceKbps(schedulePaceKbps(input.phase, { ...input.parameters, ...input }), input.hold, input.refetchKbps, input.atLink);
}

import type { SammyParameters } from '../config.js';
import { bufferFullness } from './pace-rate.js';

/**
 * Below this share of the full level nothing is held: a stall is near and the download takes all
 * the link gives. With the full level at most `fullBufferMaxSeconds` (15 s) this is 10 s at a 30
 * s or a 240 s target alike (README, "The evidence": why not a third).
 */
export const HOLD_FROM_FULLNESS = 2 / 3;

/**
 * The fill cap's margin over what Sammy's rule needs: a link with this much room for the pace base
 * at the capped pace is far above the ladder (a home link under a 4K film, 2.4 × its top), where no
 * stall is near. The family simulation chose it: at 1 (no margin) a volatile LTE link's highs,
 * 1.5–3 × the top, qualified, and filling them slower cost its viewers 1–4 % of bitrate and stalls.
 */
export const FILL_MARGIN = 1.25;

/** A held request's limits, kbps (`heldPaceKbps`). */
export interface HoldLimits {
  capKbps: number;
  floorKbps: number;
}

/**
 * Where a request that is not a probe is held (`probeInterval`), and at what: no faster than
 * `capacityShare` of the link's capacity as the probes and the held segments the link held back
 * measured it, on the wire (before the overhead), and never below what keeps the fetched rung at
 * this buffer level under Sammy's rule, after the overhead: Eq. 1 and an undrained buffer,
 * max(β⁻¹·(1 + B0/D)⁻¹, 1) × the rung (stepping up, `stepUpFactor`, is the probes' part).
 * The fill cap (issue 40): on a steady link every request, probes too and below the hold level,
 * goes at most at that share of the link wherever the share still carries `FILL_MARGIN` × Sammy's
 * need at this buffer level (Eq. 1 and the step up, `stepUpFactor`) of the rung the pace is based on
 * (`paceBaseKbps`): a pace at or above the link paces nothing, and a 4K film's fill paced at 31–63
 * Mbit/s on a 40 Mbit/s home link kept the FIFO in front of a game full.
 * Undefined: not held (the capacity unknown, or a stall near).
 */
export function holdLimits(input: {
  bufferLevelSeconds: number;
  /** Buffer level counted as full for the pace, seconds. */
  fullBufferSeconds: number;
  /** The link's capacity as measured, kbps; undefined when the last probe measured its own pace. */
  capacityKbps: number | undefined;
  /** The fetched video rung + the top audio bitrate, kbps; undefined before any video request. */
  fetchedBaseKbps: number | undefined;
  /** What the pace carries at 1×, kbps (`PaceDecisionInput.paceBaseKbps`); undefined: no fill cap. */
  paceBaseKbps?: number;
  /** A probe: held only by the fill cap. */
  probe?: boolean;
  /** The link's last two measurements agree (probe.ts): the fill cap applies only then. */
  steady?: boolean;
  parameters: Readonly<SammyParameters>;
}): HoldLimits | undefined {
  const { capacityKbps, fetchedBaseKbps, bufferLevelSeconds: b, parameters: p } = input;
  const shallow = bufferFullness(b, input.fullBufferSeconds) < HOLD_FROM_FULLNESS;
  const { linkShare } = p;
  if (capacityKbps === undefined || fetchedBaseKbps === undefined) return undefined;
  // Eq. 1 and an undrained buffer, × the rung.
  const need = Math.max(1 / p.beta / (1 + b / p.lookaheadSeconds), 1);
  // Neighbour first: no floor, the link (not the pace) sets what the rule measures; below the hold level, the link.
  const capKbps = ((shallow && linkShare ? 1 : linkShare || p.capacityShare) * capacityKbps) / (1 - p.overhead);
  // The fill cap: every request, probes too, wherever the cap carries the rule's need with a margin on a steady
  // link; only where requests are held at all (probeInterval > 1: Sammy's own rule, never pace-only mode's).
  const fill =
    !linkShare &&
    p.probeInterval > 1 &&
    input.steady &&
    p.capacityShare * capacityKbps >= FILL_MARGIN * Math.max(need, p.stepUpFactor) * input.paceBaseKbps!;
  // (The fill cap is above every floor where it applies.)
  return fill || !(input.probe || (shallow && !linkShare))
    ? { capKbps, floorKbps: fill || linkShare ? 0 : (need * fetchedBaseKbps) / (1 - p.overhead) }
    : undefined;
}

/**
 * A held request's pace, kbps: the schedule's, no faster than the cap — a faster pace downloads
 * no faster on that link, it only queues at the bottleneck in front of the neighbours — and
 * never below the floor, whatever the probes measured.
 */
export function heldPaceKbps(scheduleKbps: number, limits: HoldLimits): number {
  return Math.max(limits.floorKbps, Math.min(scheduleKbps, limits.capKbps));
}

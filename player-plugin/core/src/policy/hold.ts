import type { SammyParameters } from '../config.js';
import { bufferFullness } from './pace-rate.js';

/**
 * Below this share of the full level nothing is held: a stall is near and the download takes all
 * the link gives. With the full level at most `fullBufferMaxSeconds` (15 s) this is 10 s at a 30
 * s or a 240 s target alike (README, "The evidence": why not a third).
 */
export const HOLD_FROM_FULLNESS = 2 / 3;

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
  parameters: Readonly<SammyParameters>;
}): HoldLimits | undefined {
  const { capacityKbps, fetchedBaseKbps, bufferLevelSeconds: b, parameters: p } = input;
  const shallow = bufferFullness(b, input.fullBufferSeconds) < HOLD_FROM_FULLNESS;
  const { linkShare } = p;
  if (capacityKbps === undefined || fetchedBaseKbps === undefined || (shallow && !linkShare)) return undefined;
  // Neighbour first: no floor, the link (not the pace) sets what the rule measures; below the hold level, the link.
  const share = shallow ? 1 : linkShare || p.capacityShare;
  return { capKbps: (share * capacityKbps) / (1 - p.overhead), floorKbps: linkShare ? 0 : (Math.max(1 / p.beta / (1 + b / p.lookaheadSeconds), 1) * fetchedBaseKbps) / (1 - p.overhead) };
}

/**
 * A held request's pace, kbps: the schedule's, no faster than the cap — a faster pace downloads
 * no faster on that link, it only queues at the bottleneck in front of the neighbours — and
 * never below the floor, whatever the probes measured.
 */
export function heldPaceKbps(scheduleKbps: number, limits: HoldLimits): number {
  return Math.max(limits.floorKbps, Math.min(scheduleKbps, limits.capKbps));
}

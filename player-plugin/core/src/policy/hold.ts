import type { SammyParameters } from '../config.js';
import { sammyRuleFloor } from './pace-requirements.js';
import { bufferFullness } from './pace-rate.js';

/**
 * Below this share of the full level nothing is held: a stall is near and the download takes all
 * the link gives (trace simulation: holding from an empty buffer stalled 7× as often as unpaced
 * dash.js on the cellular traces; from a third, no more often).
 */
export const HOLD_FROM_FULLNESS = 1 / 3;

/** A held request's limits, kbps (`heldPaceKbps`). */
export interface HoldLimits {
  capKbps: number;
  floorKbps: number;
}

/**
 * Where a request that is not a probe is held (`probeInterval`), and at what: no faster than a
 * share of the link's capacity as the probes measured it — the share falls from 1 at an empty
 * buffer to `capacityShare` at the full level, on the wire (before the overhead) — and never
 * below what keeps the fetched rung at this buffer level (Sammy's validated floor over it).
 * Undefined: not held (the capacity unknown, or a stall near).
 */
export function holdLimits(input: {
  bufferLevelSeconds: number;
  /** Buffer level counted as full for the pace, seconds. */
  fullBufferSeconds: number;
  /** The probes' estimate of the link, kbps; undefined when they measured their own pace. */
  capacityKbps: number | undefined;
  /** The fetched video rung + the top audio bitrate, kbps; undefined before any video request. */
  fetchedBaseKbps: number | undefined;
  parameters: Readonly<SammyParameters>;
}): HoldLimits | undefined {
  const { capacityKbps, fetchedBaseKbps, parameters: p } = input;
  const fullness = bufferFullness(input.bufferLevelSeconds, input.fullBufferSeconds);
  if (capacityKbps === undefined || fetchedBaseKbps === undefined || fullness < HOLD_FROM_FULLNESS) return undefined;
  const share = 1 - (1 - p.capacityShare) * fullness;
  return { capKbps: (share * capacityKbps) / (1 - p.overhead), floorKbps: sammyRuleFloor(p, input.bufferLevelSeconds) * fetchedBaseKbps };
}

/**
 * A held request's pace, kbps: the schedule's, no faster than the cap — a faster pace downloads
 * no faster on that link, it only queues at the bottleneck in front of the neighbours — and
 * never below the floor, whatever the probes measured.
 */
export function heldPaceKbps(scheduleKbps: number, limits: HoldLimits): number {
  return Math.max(limits.floorKbps, Math.min(scheduleKbps, limits.capKbps));
}

import { roundRtpKbps } from 'sammy-pacing-protocol';

export interface PaceRateInput {
  /** Buffer level, seconds. */
  bufferLevelSeconds: number;
  /** Buffer level counted as full, seconds. */
  maxBufferSeconds: number;
  /** What the pace carries at 1×, kbps: the top video bitrate plus the top audio bitrate. */
  paceBaseKbps: number;
  c0: number;
  c1: number;
}

/** Fraction of the buffer that is full, clamped to [0, 1]. */
export function bufferFullness(bufferLevelSeconds: number, maxBufferSeconds: number): number {
  if (!(maxBufferSeconds > 0) || !Number.isFinite(bufferLevelSeconds)) return 0;
  return Math.min(Math.max(bufferLevelSeconds / maxBufferSeconds, 0), 1);
}

/** multiplier = c1·B + c0·(1 − B): c0 at an empty buffer, c1 at a full one. */
export function paceMultiplier(fullness: number, c0: number, c1: number): number {
  return c1 * fullness + c0 * (1 - fullness);
}

/** The pace rate for a request, kbps, unrounded. */
export function paceRateKbps(input: PaceRateInput): number {
  const b = bufferFullness(input.bufferLevelSeconds, input.maxBufferSeconds);
  return paceMultiplier(b, input.c0, input.c1) * input.paceBaseKbps;
}

/** The pace rate as a CMCD `rtp` value: kbps rounded to the nearest 100. */
export function paceRateRtp(input: PaceRateInput): number {
  return roundRtpKbps(paceRateKbps(input));
}

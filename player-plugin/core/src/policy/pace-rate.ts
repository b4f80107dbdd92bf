export interface PaceRateInput {
  /** Buffer level, seconds. */
  bufferLevelSeconds: number;
  /** Buffer level the pace counts as full, seconds (`fullBufferSeconds`). */
  fullBufferSeconds: number;
  /** What the pace carries at 1×, kbps: the top video bitrate plus the top audio bitrate. */
  paceBaseKbps: number;
  c0: number;
  c1: number;
  /**
   * The base is a rung below the top of the ladder (paceBase 'next-rung'): the player is still
   * finding the link's capacity, so the schedule's largest multiplier applies whatever the buffer.
   */
  belowTop?: boolean;
}

/** Fraction of the buffer that is full, clamped to [0, 1]. */
export function bufferFullness(bufferLevelSeconds: number, fullBufferSeconds: number): number {
  if (!(fullBufferSeconds > 0) || !Number.isFinite(bufferLevelSeconds)) return 0;
  return Math.min(Math.max(bufferLevelSeconds / fullBufferSeconds, 0), 1);
}

/** multiplier = c1·B + c0·(1 − B): c0 at an empty buffer, c1 at a full one. */
export function paceMultiplier(fullness: number, c0: number, c1: number): number {
  return c1 * fullness + c0 * (1 - fullness);
}

/** The pace rate for a request, kbps, unrounded. */
export function paceRateKbps(input: PaceRateInput): number {
  const { c0, c1 } = input;
  const multiplier = input.belowTop
    ? Math.max(c0, c1)
    : paceMultiplier(bufferFullness(input.bufferLevelSeconds, input.fullBufferSeconds), c0, c1);
  return multiplier * input.paceBaseKbps;
}

/**
 * The video bitrate the pace scales. 'top': the top of the ladder (the paper). 'next-rung': the
 * fetched rung when it is the top of `ladderKbps` (the ladder the bitrate rule sees, which a
 * player may cap below the stream's top), else the next rung up — a pace the next rung can be
 * measured at, so the player can still step up. Without a ladder or a fetched rung: the top.
 */
export function paceRungKbps(
  paceBase: 'top' | 'next-rung',
  topKbps: number,
  fetchedKbps: number | undefined,
  ladderKbps: readonly number[] = [],
): { kbps: number; belowTop: boolean } {
  if (paceBase === 'top' || !(fetchedKbps! > 0) || !ladderKbps.length) return { kbps: topKbps, belowTop: false };
  const next = Math.min(...ladderKbps.filter((r) => r > fetchedKbps!));
  return next < Infinity ? { kbps: next, belowTop: true } : { kbps: fetchedKbps!, belowTop: false };
}

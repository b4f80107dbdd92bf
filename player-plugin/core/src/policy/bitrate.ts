/**
 * Pacing-aware bitrate choice (paper, Section 4.2): a throughput rule with safety factor β and
 * look-ahead D. With throughput estimate x and buffer B0, the buffer after D seconds of
 * bitrate r is B0 + D − D·r/(βx); the rule picks the highest r keeping it above zero:
 *   r ≤ β·x·(1 + B0/D).
 * So it needs only to know whether x clears that line, not how far: pacing can cut x to just
 * above it without changing a single choice.
 */

export interface BitrateChoiceInput {
  /** Bitrates of the ladder, kbps, any order. */
  bitratesKbps: readonly number[];
  /** Throughput estimate, kbps; undefined before any sample. */
  throughputKbps: number | undefined;
  bufferLevelSeconds: number;
  beta: number;
  lookaheadSeconds: number;
  /** With no estimate: the highest rung at or below this, kbps (the player's own start); else the lowest. */
  fallbackBitrateKbps?: number;
  /** The rung fetched last, kbps: rungs above it need `stepUpFactor` × their bitrate as well. */
  currentBitrateKbps?: number;
  /** Hysteresis: a step up to r needs an estimate ≥ stepUpFactor·r too (0 or undefined: none). */
  stepUpFactor?: number;
}

/** Highest bitrate the rule allows at this throughput and buffer: β·x·(1 + B0/D). */
export function sustainableBitrateKbps(throughputKbps: number, bufferLevelSeconds: number, beta: number, lookaheadSeconds: number): number {
  const b0 = Math.max(0, bufferLevelSeconds);
  return beta * throughputKbps * (1 + b0 / lookaheadSeconds);
}

/** Eq. 1: the least throughput estimate with which the rule picks bitrate r. */
export function minimumThroughputKbps(bitrateKbps: number, bufferLevelSeconds: number, beta: number, lookaheadSeconds: number): number {
  const b0 = Math.max(0, bufferLevelSeconds);
  return bitrateKbps / beta / (1 + b0 / lookaheadSeconds);
}

/**
 * Picks a bitrate from the ladder by Eq. 1 (without an estimate: at or below the fallback); the
 * lowest when none fits. Keeping or stepping down needs Eq. 1 alone; stepping up above the
 * current rung also needs the estimate to reach `stepUpFactor` × the new rung — Eq. 1's
 * look-ahead lets a deep buffer pay for a rung the link cannot carry (Appendix A), which on a
 * link between two rungs alternates between them; the hysteresis steps up only to a rung the
 * link sustains.
 */
export function selectBitrateKbps(input: BitrateChoiceInput): number {
  const ladder = [...input.bitratesKbps].filter((b) => Number.isFinite(b) && b > 0).sort((a, b) => a - b);
  const lowest = ladder[0];
  if (lowest === undefined) throw new RangeError('Sammy: the ladder has no bitrate');
  const x = input.throughputKbps;
  const estimated = x !== undefined && Number.isFinite(x) && x > 0;
  const limit = estimated ? sustainableBitrateKbps(x, input.bufferLevelSeconds, input.beta, input.lookaheadSeconds) : (input.fallbackBitrateKbps ?? 0);
  let chosen = lowest;
  // Without an estimate (no current rung to hold to), the fallback alone.
  for (const r of ladder) if (r <= limit && (!estimated || r <= (input.currentBitrateKbps ?? r) || (input.stepUpFactor ?? 0) * r <= x)) chosen = r;
  return chosen;
}

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
  estimateKbps: number | undefined;
  /**
   * The estimate the step-up factor is held to, kbps: from the probes alone (segments paced by
   * the schedule, `probeInterval`), as held ones measure their pace below the link's capacity.
   * Undefined: `estimateKbps`.
   */
  stepUpEstimateKbps?: number;
  bufferLevelSeconds: number;
  beta: number;
  lookaheadSeconds: number;
  /** With no estimate: the highest rung at or below this, kbps (the player's own start); else the lowest. */
  fallbackBitrateKbps?: number;
  /** The rung fetched last, kbps: rungs above it need `stepUpFactor` × their bitrate as well. */
  currentBitrateKbps?: number;
  /**
   * Hysteresis (0 or undefined: none): a step up to r needs an estimate ≥ stepUpFactor·r, and
   * Eq. 1 still met for r once the player has refetched what a step up makes it refetch.
   */
  stepUpFactor?: number;
  /** Duration of one segment, seconds (unknown: 0). */
  segmentSeconds?: number;
  /**
   * The buffer level, seconds, from which a step up makes the player refetch its buffer at the
   * new rung: dash.js's fast switching (`streaming.buffer.fastSwitchEnabled`, on by default)
   * does from 1.5 × the segment duration its manifest declares, 1.5 s when it declares none (a
   * SegmentTimeline, as ffmpeg writes). Undefined: the player refetches nothing.
   */
  stepUpRefetchSeconds?: number;
}

/**
 * The low-buffer guard's safety factor: the next segment of r must download in this share of the
 * buffer at the estimate, r ≤ LOW_BUFFER_SAFETY · x · B0 / segment seconds. dash.js's
 * InsufficientBufferRule (its `throughputSafetyFactor`, 5.2.1): below a few seconds of buffer the
 * rule is as careful as the player's own ABR, where Eq. 1's look-ahead would let a shallow buffer
 * pay for a rung the link cannot carry (issue 39: 2.3–3.3 Mbit/s held with 0–5 s of buffer on a
 * 1–3 Mbit/s link, 9–14 s of stalls where dash.js dropped to its lowest rung). From 5 s of buffer
 * (4 s segments) Eq. 1 is the stricter. It applies from the first download (which tells the segment's
 * duration) where dash.js's rule ignores two: the family simulation finds no difference.
 */
export const LOW_BUFFER_SAFETY = 0.7;

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
 * The buffer left, seconds, once a step up to r (at estimate x) has refetched the buffer: the
 * refetched downloads add nothing while playback drains it. Counted as every buffered segment,
 * the one at the playhead too (dash.js refetches from the segment 1.5 s past the playhead, which
 * without a declared segment duration is the playhead's own). Without a
 * refetch the step up's first segment adds more than it takes (x > r): the buffer as it is.
 */
export function bufferAfterStepUp(
  bufferLevelSeconds: number,
  r: number,
  x: number,
  segmentSeconds: number,
  stepUpRefetchSeconds: number | undefined,
): number {
  if (stepUpRefetchSeconds === undefined || !(segmentSeconds > 0) || bufferLevelSeconds < stepUpRefetchSeconds) return bufferLevelSeconds;
  const refetched = Math.ceil(bufferLevelSeconds / segmentSeconds - 1e-9) * segmentSeconds;
  return bufferLevelSeconds - (refetched * r) / x;
}

/**
 * Picks a bitrate from the ladder by Eq. 1 (without an estimate: at or below the fallback) and the
 * low-buffer guard (`LOW_BUFFER_SAFETY`, with a segment duration); the lowest when none fits. Keeping or stepping down needs Eq. 1 alone. With hysteresis
 * (`stepUpFactor` > 0) stepping up above the current rung also needs:
 * - an estimate of `stepUpFactor` × the new rung (from the probes, `stepUpEstimateKbps`, when
 *   held segments measure their pace below the link): Eq. 1's look-ahead lets a deep buffer pay for
 *   a rung the link cannot carry (Appendix A), which on a link between two rungs alternates
 *   between them; this steps up only to a rung the link sustains;
 * - Eq. 1 (and the low-buffer guard) for the new rung at the buffer left once the player has refetched what the step up
 *   makes it refetch (`bufferAfterStepUp`), and that buffer long enough to download the next
 *   segment of it: otherwise the next request, at that lower buffer, stalls or steps back down,
 *   and dash.js refetches the same segments once more at the lower rung (README, "The evidence").
 */
export function selectBitrateKbps(input: BitrateChoiceInput): number {
  const ladder = input.bitratesKbps.filter((b) => Number.isFinite(b) && b > 0).sort((a, b) => a - b);
  const lowest = ladder[0];
  if (lowest === undefined) throw new RangeError('Sammy: the ladder has no bitrate');
  const x = input.estimateKbps;
  const estimated = Number.isFinite(x) && x! > 0;
  const { beta, lookaheadSeconds, bufferLevelSeconds, stepUpFactor = 0 } = input;
  const limit = estimated ? sustainableBitrateKbps(x!, bufferLevelSeconds, beta, lookaheadSeconds) : (input.fallbackBitrateKbps ?? 0);
  const segmentSeconds = input.segmentSeconds ?? 0;
  // The low-buffer guard: r's next segment downloads within LOW_BUFFER_SAFETY of the buffer b at the
  // estimate (at an empty buffer: the lowest), once a download has told the segment's duration (else 0: met).
  const guard = (r: number, b: number) => !estimated || r * segmentSeconds <= LOW_BUFFER_SAFETY * x! * b;
  const canStepUp = (r: number) => {
    if (!stepUpFactor) return true;
    // The refetches and the next download go unheld, at the probes' estimate; Eq. 1 at the
    // buffer they leave goes by the estimate the rule keeps a rung with (held segments and all).
    const up = input.stepUpEstimateKbps ?? x!;
    if (stepUpFactor * r > up) return false;
    const left = bufferAfterStepUp(bufferLevelSeconds, r, up, segmentSeconds, input.stepUpRefetchSeconds);
    // After a refetch the next segment of r must download before the buffer runs out, too.
    const nextDownload = left < bufferLevelSeconds ? (segmentSeconds * r) / up : 0;
    return left >= nextDownload && minimumThroughputKbps(r, left, beta, lookaheadSeconds) <= x! && guard(r, left);
  };
  let chosen = lowest;
  // Without an estimate (no current rung to hold to), the fallback alone.
  for (const r of ladder)
    if (r <= limit && guard(r, bufferLevelSeconds) && (!estimated || r <= (input.currentBitrateKbps ?? r) || canStepUp(r))) chosen = r;
  return chosen;
}

/**
 * Every tunable of Sammy, with its unit and default, in one place (as hls.js keeps its
 * config.ts). Adapters take any of these as options; `update()` changes them live, through the
 * same validation (policy/parameters.ts).
 */
export interface SammyParameters {
  /** Pace multiplier of the pace base (top video + top audio bitrate) at an empty buffer, ×. */
  c0: number;
  /** Pace multiplier of the pace base at a full buffer, ×. */
  c1: number;
  /** Bandwidth safety factor β of the bitrate choice, in (0, 1]. */
  beta: number;
  /** Look-ahead duration D of the bitrate choice, seconds. */
  lookaheadSeconds: number;
  /** Share of measured throughput lost to HTTP/TCP headers and framing, in [0, 0.5). */
  overhead: number;
  /** Samples the throughput estimate (a harmonic mean) spans, count. */
  throughputWindow: number;
  /** Chunk-throughput samples kept per media type in a session, count. */
  sessionSampleLimit: number;
  /** Initial-phase samples kept across sessions, count. */
  historyLimit: number;
  /**
   * Video bitrate to start from with no throughput estimate at all (an empty history), kbps: the
   * player's own initial estimate (dash.js's DEFAULT_VIDEO_BITRATE). The first pick is the
   * highest rung at or below it, as the player itself would choose.
   */
  initialVideoBitrateKbps: number;
}

/**
 * Defaults. c0/c1 are the production values of the paper (Section 5): pace at 3.2× the top
 * bitrate with an empty buffer, 2.8× with a full one. β and the look-ahead belong to the
 * throughput rule that picks bitrates (Section 4.2); 0.7 leaves room for throughput noise on
 * real links while the pace still sustains the top rung with a wide margin (2.8·0.7·0.95 ≈ 1.86).
 * Five samples follow a changing link within one or two segments while one slow sample cannot
 * swing the pick; twenty history samples give a stable first pick yet follow a device that moves.
 */
export const DEFAULT_PARAMETERS: Readonly<SammyParameters> = Object.freeze({
  c0: 3.2,
  c1: 2.8,
  beta: 0.7,
  lookaheadSeconds: 20,
  overhead: 0.05,
  throughputWindow: 5,
  sessionSampleLimit: 20,
  historyLimit: 20,
  initialVideoBitrateKbps: 1000,
});

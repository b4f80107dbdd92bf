/**
 * Every tunable of Sammy, with its unit and default, in one place (as hls.js keeps its
 * `src/config.ts`): one interface, one default object with "used by" notes, the named pace designs.
 * Adapters take any of these as options; `update()` changes them live, through the same validation
 * (policy/parameters.ts). Why each default is what it is, with the figures that chose it, is in
 * README.md ("The pace, from the theory" and "Where the defaults come from").
 */
export interface SammyParameters {
  /** Pace multiplier of the pace base at an empty buffer, ×. */
  c0: number;
  /** Pace multiplier of the pace base at a full buffer, ×. */
  c1: number;
  /** Share of the player's buffer target from which the buffer counts as full for the pace, in (0, 1] (1: the paper). */
  fullBufferShare: number;
  /** The buffer counts as full for the pace from this level at the latest, seconds, whatever the player's target (Infinity: the paper). */
  fullBufferMaxSeconds: number;
  /**
   * What the multiplier scales (plus the top audio bitrate): 'top', the top video rung (the paper);
   * 'next-rung', the rung fetched when it is the top of the ladder the rule sees, else the next one up at c0.
   */
  paceBase: 'top' | 'next-rung';
  /** Hysteresis of Sammy's bitrate rule, × rung: it steps up only on an estimate ≥ this × the new rung (0: the paper's rule). */
  stepUpFactor: number;
  /** Every this many-th video segment is a probe, paced by the schedule; the others are held (1: none held, the paper), count. */
  probeInterval: number;
  /** A held segment's pace at most, as a share of the link's capacity the probes measured, in (0, 1]. */
  capacityShare: number;
  /**
   * The neighbour-first knob, a share in [0, 1] (0: off, the viewer first). Once the link has measurably capped a
   * video download, every video request but a probe is paced at most at this share of the link's measured capacity
   * from two thirds of the full level (below it, at the link's capacity: a stall is near), even below the rung's held
   * floor: the bitrate rule then settles on what that share carries, and the queue in front of the neighbour stays
   * empty while the link holds. Lower: emptier queue, lower bitrate (README, "The frontier").
   */
  linkShare: number;
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
  /** Video bitrate to start from with no estimate at all, kbps: the player's own start (the adapter's default). */
  initialVideoBitrateKbps: number;
}

/** The defaults: the paper's algorithm with the lower pace of issue 17 (`PRESETS.bufferAware`), chosen from the lab's rate sweep, and its full level capped for deep targets (issue 33, the trace families' simulation). */
export const DEFAULT_PARAMETERS: Readonly<SammyParameters> = Object.freeze({
  c0: 4, // pace-rate.ts (the line), parameters.ts (validated ≥ 1.51)
  c1: 1.25, // pace-rate.ts; the validated floor (1.16 at a 30 s target) plus ~8% for latency and rtp's rounding
  fullBufferShare: 0.5, // session.ts (the level counted full for the pace), parameters.ts
  fullBufferMaxSeconds: 15, // session.ts, parameters.ts: at a 240 s target the pace reaches c1, and holding starts (hold.ts), as at 30 s
  paceBase: 'next-rung', // pace-rate.ts: paceRungKbps
  stepUpFactor: 1.1, // bitrate.ts (hysteresis, the refetch check), parameters.ts (the floor)
  probeInterval: 3, // probe.ts
  capacityShare: 0.8, // hold.ts (the held pace's cap)
  linkShare: 0, // hold.ts: off, the viewer first (PRESETS.neighbourFirst sets it)
  beta: 0.7, // bitrate.ts (Eq. 1), hold.ts (the held floor), parameters.ts
  lookaheadSeconds: 20, // bitrate.ts (Eq. 1), hold.ts (the held floor), parameters.ts
  overhead: 0.05, // hold.ts, probe.ts (refetch), parameters.ts
  throughputWindow: 5, // session.ts and probe.ts (estimates), initial-history.ts
  sessionSampleLimit: 20, // session.ts, probe.ts
  historyLimit: 20, // initial-history.ts
  initialVideoBitrateKbps: 1000, // bitrate.ts (the first pick with no estimate): dash.js's start and Shaka's default estimate; hls.js's adapter passes its own
});

/**
 * A pace design: the pace schedule (c0, c1, fullBufferShare, fullBufferMaxSeconds, paceBase), the rule's hysteresis and
 * the probing. Every other tunable keeps its value, so a preset spreads into `attach` options or
 * `update()` without resetting them: `attach(player, { ...PRESETS.paper })`.
 */
export type PacePreset = Readonly<
  Pick<
    SammyParameters,
    'c0' | 'c1' | 'fullBufferShare' | 'fullBufferMaxSeconds' | 'paceBase' | 'stepUpFactor' | 'probeInterval' | 'linkShare'
  >
>;

// (Pure: an app that uses no preset bundles none; pace-only mode's start bundles the paper's alone.)
/** The paper's algorithm and production values (Section 5); pace-only mode starts from it. */
export const PAPER_PACE: PacePreset = /* @__PURE__ */ Object.freeze({
  c0: 3.2,
  c1: 2.8,
  fullBufferShare: 1,
  fullBufferMaxSeconds: Infinity,
  paceBase: 'top',
  stepUpFactor: 0,
  probeInterval: 1,
  linkShare: 0,
});
const BUFFER_AWARE: PacePreset = {
  c0: 4,
  c1: 1.25,
  fullBufferShare: 0.5,
  fullBufferMaxSeconds: 15,
  paceBase: 'next-rung',
  stepUpFactor: 1.1,
  probeInterval: 3,
  linkShare: 0,
};
/**
 * `paper`; `bufferAware`: the lowest pace the buffer allows (issue 17), what the defaults have (README.md);
 * `neighbourFirst`: the defaults with `linkShare` on, for operators who put the neighbour's delay before the
 * viewer's bitrate (issue 39: it must beat dash.js's own rtp on both; README, "The frontier").
 */
export const PRESETS: { readonly paper: PacePreset; readonly bufferAware: PacePreset; readonly neighbourFirst: PacePreset } = {
  paper: PAPER_PACE,
  bufferAware: /* @__PURE__ */ Object.freeze(BUFFER_AWARE),
  neighbourFirst: /* @__PURE__ */ Object.freeze({ ...BUFFER_AWARE, linkShare: 0.6 }),
};

/**
 * The player buffer target the validation assumes when the adapter does not say,
 * seconds: the smallest default buffer target of the players adapted (Shaka's bufferingGoal).
 */
export const DEFAULT_BUFFER_TARGET_SECONDS = 10;

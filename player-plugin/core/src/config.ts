/**
 * Every tunable of Sammy, with its unit and default, in one place (as hls.js keeps its
 * config.ts). Adapters take any of these as options; `update()` changes them live, through the
 * same validation (policy/parameters.ts).
 */
export interface SammyParameters {
  /** Pace multiplier of the pace base at an empty buffer, ×. */
  c0: number;
  /** Pace multiplier of the pace base at a full buffer, ×. */
  c1: number;
  /**
   * Share of the player's full buffer level (its buffer target) at which the buffer counts as
   * full for the pace, in (0, 1]: c1 applies from there up. 1: the target itself (the paper).
   */
  fullBufferShare: number;
  /**
   * What the multiplier scales (plus the top audio bitrate, which rides the same connection):
   * 'top' — the top video bitrate of the ladder, always (the paper); 'next-rung' — the rung being
   * fetched when it is the top of the ladder the bitrate rule sees, else the next rung up, at the
   * schedule's largest multiplier (below the top the player is still finding the link's capacity).
   */
  paceBase: 'top' | 'next-rung';
  /**
   * Hysteresis of Sammy's bitrate rule, ×: it steps up to a higher rung only when its estimate is
   * at least this × that rung (as well as clearing Eq. 1); keeping a rung needs Eq. 1 alone.
   * 0: no hysteresis (the paper's rule).
   */
  stepUpFactor: number;
  /**
   * Every this many-th video segment is a probe, count: paced by the schedule alone, so that it
   * measures the link (or its own pace, when the link is faster). The others are held: paced no
   * faster than `capacityShare` × the link's capacity as the latest probes measured it — a
   * faster pace cannot download faster there, it only queues at the bottleneck, in front of the
   * neighbours — and never below what keeps the fetched rung (the validated floor). A step up
   * goes by the probes alone. 1: every segment is a probe, nothing is held (the paper).
   */
  probeInterval: number;
  /** Share of the link's capacity (as the probes measured it) a held segment is paced at, at most, in (0, 1]. */
  capacityShare: number;
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
 * Defaults: the paper's algorithm with the lower pace of issue 17 (`PRESETS.bufferAware`,
 * explained there), chosen from the lab's rate sweep (lab/README.md; 3 runs per arm and link,
 * 50 s sessions, 30 s buffer target, a UDP neighbour at 1/8 of the link), against unpaced dash.js
 * and the paper's values on the same runs: the neighbour's one-way delay −84% / −79% / −95% at
 * 1.5× / 2× / 3× the top bitrate (paper +21% / +7% / −5%), chunk throughput −68% at 6× and −84%
 * at 12× (paper −36% and −66%) at the same bitrate; on a 1.5× link no stall where the paper's
 * rule stalled 2–3 times a run (dash.js's fast switching
 * refetches the buffer at every step up; the defaults' step-up check waits for a buffer that
 * affords it). The paper's values stay one spread away: `PRESETS.paper`, and pace-only mode
 * starts from them (a player's own ABR has no look-ahead nor hysteresis for a lower pace to
 * rely on). β and the look-ahead belong to the throughput rule that picks bitrates (Section
 * 4.2); 0.7 leaves room for throughput noise on real links. Five samples follow a changing link
 * within one or two segments while one slow sample cannot swing the pick; twenty history
 * samples give a stable first pick yet follow a device that moves.
 */
export const DEFAULT_PARAMETERS: Readonly<SammyParameters> = Object.freeze({
  c0: 4,
  c1: 1.25,
  fullBufferShare: 0.5,
  paceBase: 'next-rung',
  stepUpFactor: 1.1,
  probeInterval: 3,
  capacityShare: 0.8,
  beta: 0.7,
  lookaheadSeconds: 20,
  overhead: 0.05,
  throughputWindow: 5,
  sessionSampleLimit: 20,
  historyLimit: 20,
  initialVideoBitrateKbps: 1000,
});

/**
 * What a preset sets: the pace schedule (c0, c1, fullBufferShare, paceBase), the bitrate
 * rule's hysteresis (stepUpFactor) and the probing (probeInterval), the parts that make a pace design. Every other tunable keeps
 * its value — the default, the adapter's own (hls.js's start estimate) or the app's — so a
 * preset spreads into an adapter's options or `update()` without resetting them:
 * `attach(player, { ...PRESETS.paper })`, `sammy.update(PRESETS.bufferAware)`.
 */
export type PacePreset = Readonly<Pick<SammyParameters, 'c0' | 'c1' | 'fullBufferShare' | 'paceBase' | 'stepUpFactor' | 'probeInterval'>>;

/**
 * Named pace designs.
 *
 * `paper`: the paper's algorithm and production values (Section 5): 3.2× the top bitrate at an
 * empty buffer, 2.8× at a full one (counted full at the player's own target), always on the
 * top of the ladder, Eq. 1 alone picking bitrates. Pace-only mode starts from it.
 *
 * `bufferAware`: the lowest pace the buffer allows (issue 17), from the theory, tuned with the
 * trace-driven simulation (core/test/trace-simulation.test.ts) and chosen as the defaults from
 * the lab's rate sweep. What the defaults have (tested).
 *
 * - The floor. Sammy's rule keeps a rung r while its estimate x ≥ r·β⁻¹·(1 + B0/D)⁻¹ (Eq. 1):
 *   1.43× at an empty buffer, 0.57× at 30 s. Below 1× the pace clears Eq. 1 but drains the
 *   buffer (Appendix A: it grows only while x > r) until the pace rises again, and a rung must
 *   stay reachable from below: with `stepUpFactor` 1.1 the pace must measure
 *   max(Eq. 1, 1.1) × its rung at every buffer level, i.e. a multiplier of 1.16 once the buffer
 *   holds 6 s (1.51 at empty). The validation holds the whole line to that, level by level.
 * - c1 = 1.25: that floor plus ~8% for what the overhead figure does not cover (each sample's
 *   request latency, rtp's rounding to 100 kbps): 1.25 × (top + audio) once the buffer is
 *   deep. In the simulation that is 7.7 Mbit/s for a 6 Mbit/s top: below a 1.5× link 90% of
 *   the playing transfer time (the paper's 2.8: 0%), chunk throughput −87% at 12× (paper −73%),
 *   bitrate and rebuffering as unpaced dash.js.
 * - fullBufferShare 0.5: c1 from half the player's buffer target (15 of dash.js's 30 s, 5 of
 *   Shaka's 10 s — still above the floor there: 1.2). A player asks for its next segment once the
 *   buffer has room for one, and on a link of 1.5–2× the top the buffer fills slowly: with 0.8
 *   the pace stayed above such a link for most of a one-minute session (lab at 2×: with 0.8,
 *   one run, the neighbour's delay −2%; with 0.5, 3 runs, −14% over the 50 s session and −97%
 *   over its second half); the simulation paces below a 1.5× link 90% of the time (0.8: 83%) at the same
 *   rebuffering on the noisy cellular traces.
 * - c0 = 4: the pace while the buffer is low, where a dip stalls playback. It falls to c1
 *   over 0–15 s, so it is above the paper's (3.2 → 2.8 over 30 s) below ~7 s of buffer and
 *   below it beyond: the first playing segments, fetched at 4–8 s of buffer, download as fast
 *   as the paper's (with c0 = 2 they stalled more often than the paper's on the noisy 2–3× traces).
 * - paceBase 'next-rung': at the top of the ladder the rule sees (a player may cap it below
 *   the stream's top) the pace follows the rung fetched; below it, the next rung up at c0 — a
 *   sample of ~3.8× the next rung, enough to step up even where latency takes a share of
 *   every small segment; the rung is held below the top only while the link is below it anyway.
 * - stepUpFactor 1.1: on a link between two rungs Eq. 1's look-ahead alone alternates between
 *   them (drain on the upper, refill on the lower: 45 switches in 6 minutes on a 0.8× link);
 *   stepping up only on an estimate 10% above the rung, and only where the buffer a step up
 *   leaves still keeps the rung (dash.js refetches its buffer at a step up: bitrate.ts), stops
 *   that (2 switches), and a link of 1.16× the top still reaches it. Keeping a rung needs Eq. 1
 *   alone, so a deep buffer still pays for a rung through a dip (Appendix A).
 * - probeInterval 3 (capacityShare 0.8): on a link below the line (1.5–3× the top) a faster
 *   pace downloads no faster and only keeps the bottleneck's queue full, so between probes — every
 *   third video segment, paced by the line — segments are held at 0.8–1 × what the probes
 *   measured, above the floor (policy/hold.ts, the session's decide). Lab sweep, 3 runs per link:
 *   the neighbour's median delay at 1.5× and 2× 19.6 and 19.7 ms against unpaced dash.js's 122 and
 *   90 ms (without probing 122 and 77 ms), same bitrate as without, no stall. Each probe fills the queue
 *   for a segment, so fewer is better for the neighbours, but a rise shows only in a probe: with
 *   every third the simulation reaches the top within 30 s of a rise (tested).
 * β, the look-ahead and the rest are not the preset's: the floor above is for β = 0.7 and
 * D = 20 s, and the validation recomputes it for any other.
 */
// (Pure: an app that uses no preset bundles none; pace-only mode's start bundles the paper's alone.)
export const PAPER_PACE: PacePreset = /* @__PURE__ */ Object.freeze({ c0: 3.2, c1: 2.8, fullBufferShare: 1, paceBase: 'top', stepUpFactor: 0, probeInterval: 1 });
export const PRESETS: { readonly paper: PacePreset; readonly bufferAware: PacePreset } = {
  paper: PAPER_PACE,
  bufferAware: /* @__PURE__ */ Object.freeze({ c0: 4, c1: 1.25, fullBufferShare: 0.5, paceBase: 'next-rung', stepUpFactor: 1.1, probeInterval: 3 }),
};

/**
 * The buffer level counted as full that the validation assumes when the adapter does not say
 * (SessionConfig.maxBufferSeconds), seconds: the smallest default buffer target of the players
 * adapted (Shaka's bufferingGoal). A session never paces as if the buffer were full below it.
 */
export const DEFAULT_MAX_BUFFER_SECONDS = 10;

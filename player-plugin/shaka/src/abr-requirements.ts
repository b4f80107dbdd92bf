/**
 * Pace-only mode: what Shaka Player 5's own ABR, `shaka.abr.SimpleAbrManager`, needs from a paced
 * download, read from its `abr` configuration. From Shaka 5.2's sources (paths under its `lib/`):
 *
 * - Samples (`net/http_fetch_plugin.js:206-218`, `net/networking_engine.js:582-594`): one per
 *   progress event — bytes and time since the previous one, an event once more than 100 ms and at
 *   least `networking.minBytesForProgressEvents` (16 kB) have arrived, and one at the end. The
 *   estimator (`abr/ewma_bandwidth_estimator.js:89-101`) drops samples under `abr.advanced.minBytes`
 *   (16 kB) and `SimpleAbrManager.segmentDownloaded` (`abr/simple_abr_manager.js:357-371`) those
 *   under `abr.cacheLoadThreshold` (5 ms): every sample it keeps spans at least 16 kB of a paced
 *   body, so it measures the pace less header overhead (the first one of a response also counts
 *   the time to first byte: see below).
 * - Estimate (`abr/ewma_bandwidth_estimator.js:110-118`, `abr/ewma.js:61-78`): the smaller of two
 *   EWMAs (half-lives 2 s and 5 s), each weighted by sample duration and divided by its total
 *   weight — a weighted mean of the samples, never below the lowest one. So a pace that is never
 *   below a level keeps the estimate at or above it (before 128 kB, `minTotalBytes`, it is
 *   `defaultBandwidthEstimate`: the initial phase, unpaced).
 * - Choice (`abr/simple_abr_manager.js:286-316`): over the variants sorted by bandwidth, the
 *   highest one whose range holds the estimate, the range of a variant being
 *   [bandwidth × playbackRate / `bandwidthDowngradeTarget`, next bandwidth × playbackRate /
 *   `bandwidthUpgradeTarget`]. The top variant has no next one (`next = {bandwidth: Infinity}`),
 *   so its range is unbounded above: Shaka keeps, or steps up to, the top variant exactly when
 *   estimate ≥ top variant bandwidth / bandwidthDowngradeTarget (0.95 → 1.053×), at every buffer
 *   level. `bandwidthUpgradeTarget` (0.85) only bounds lower variants from above (hysteresis
 *   between them); it never enters the condition for the top one.
 * - A variant's bandwidth is its video plus its audio bandwidth (DASH) or the playlist's
 *   BANDWIDTH (HLS): at most the pace base, top video + top audio, which the adapter takes as the
 *   largest of both (`tracks.ts`). So the multiple below, taken of the pace base, is exact, not
 *   merely conservative.
 *
 * Not covered: the time to first byte, which Shaka counts as download time (the EWMA's own
 * comment: "our models do not include latency information"): per response it adds a latency the
 * pace cannot bound, so a pace right at the minimum holds the top rung only with no latency;
 * `overhead` is the knob for it (raise it by latency × c ÷ segment duration). Also not covered:
 * playback rates above 1 (Shaka's need scales with the rate, the pace does not),
 * `preferNetworkInformationBandwidth` (the browser's estimate replaces the samples), CMSD
 * (`etp`, `mb`), and another AbrManager than SimpleAbrManager behind `abrFactory`.
 */
import { paceShortfalls, PRESETS, type PaceRequirement, type PlayerAbr } from 'sammy-pacing-core';
import type { AbrConfiguration } from './shaka.js';

/** Shaka 5.2's defaults (lib/util/player_configuration.js), for settings a player does not report. */
export const SHAKA_ABR_DEFAULTS = Object.freeze({
  bandwidthDowngradeTarget: 0.95,
  bandwidthUpgradeTarget: 0.85,
  minBytes: 16e3,
});

/** The requirements of Shaka's SimpleAbrManager under these `abr` settings. */
export function shakaAbrRequirements(abr: Partial<Pick<AbrConfiguration, 'bandwidthDowngradeTarget'>> | undefined, bufferTargetSeconds: number): PlayerAbr {
  const t = abr?.bandwidthDowngradeTarget;
  const target = typeof t === 'number' && t > 0 && Number.isFinite(t) ? t : SHAKA_ABR_DEFAULTS.bandwidthDowngradeTarget;
  const requirement: PaceRequirement = {
    rule: `under Shaka's SimpleAbrManager (abr.bandwidthDowngradeTarget ${target})`,
    reason: `it keeps, or steps up to, the top variant only while its bandwidth estimate × ${target} reaches that variant's bandwidth (video + audio)`,
    throughputMultiple: 1 / target,
    fromBufferSeconds: 0,
    toBufferSeconds: Infinity,
  };
  return { name: 'Shaka Player', requirements: [requirement], bufferTargetSeconds, safetyFactor: target, check: paceShortfalls, pace: PRESETS.paper };
}

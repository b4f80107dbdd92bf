/**
 * Pace-only mode: what hls.js 1.7's own ABR needs from a paced download, read from its config.
 * Every figure comes from hls.js 1.7.4's sources (paths under its `src/`):
 *
 * - Measured throughput (`controller/abr-controller.ts:515-541`, onFragBuffered): bytes of a
 *   main-playlist fragment over (parsing end − request start − min(TTFB, TTFB estimate)), so a
 *   paced download measures the pace less header and framing overhead (and the fragment's
 *   parse time). Audio-rendition and init fragments are not sampled (`ignoreFragment`, :553-556).
 * - Estimate (`utils/ewma-bandwidth-estimator.ts:74-84`, `utils/ewma.ts`): min of two EWMAs
 *   (abrEwmaFastVoD 3 s, abrEwmaSlowVoD 9 s half-lives, `config.ts:508-509`), each a weighted mean of samples
 *   (weights = download seconds, bias-corrected), never below the lowest sample it spans: a pace
 *   never below a level keeps the estimate at or above it, whatever the half-lives.
 * - Level choice (`findBestLevel`, :768, :956-996; defaults `config.ts:512-513`): a level at or below the last loaded one is
 *   kept if `abrBandWidthFactor` (0.95) × estimate ≥ its bitrate; a higher one is stepped up to
 *   only if `abrBandWidthUpFactor` (0.7) × estimate ≥ its bitrate — both at every buffer level.
 *   To keep the top rung: measured ≥ top / 0.95; to step (back) up to it: top / 0.7 ≈ 1.43×.
 *   (Its bitrate is the variant's BANDWIDTH, the audio rendition included, or AVERAGE-BANDWIDTH
 *   at two segments of buffer and more: lower, so BANDWIDTH is the stricter.)
 * - Emergency abandon (`_abandonRulesCheck`, :247-437): once a fragment has loaded for half its
 *   duration (:299-305) the rule aborts it and switches down if the rest would take longer than
 *   the buffer left (:335). A fragment measured at ≥ 2× its bitrate is done before that check
 *   starts, at every buffer level; slower ones are aborted when the buffer at the request is
 *   below segment duration / (measured multiple). The segment duration is not known when
 *   attaching, so c0 and c1 alike must clear 2× (the rule never acts on the lowest level, :268).
 *
 * Not covered: an empty buffer with segments longer than `maxStarvationDelay` (4 s): hls.js then
 * needs duration / maxStarvationDelay times more (`getNextABRAutoLevel`, :654, :692-694; at an empty
 * buffer playback has stalled and Sammy is in its initial phase, unpaced); the low-latency part
 * loading of LL-HLS; `abrMaxWithRealBitrate`.
 */
import type { HlsConfig } from 'hls.js';
import { playerAbrOf, positiveOr, type PlayerAbr } from 'sammy-pacing-core';

/** hls.js 1.7's defaults (src/config.ts); the abandon rule watches a fragment after that share of its duration (abr-controller.ts:302). */
export const HLS_ABR_DEFAULTS = Object.freeze({ abrBandWidthFactor: 0.95, abrBandWidthUpFactor: 0.7, maxBufferLength: 30, abandonCheckAfterShareOfDuration: 0.5 });

/** The requirements of hls.js's ABR as this config stands; `bufferTargetSeconds`: hls.js's buffer target. */
export function hlsAbrRequirements(config: Partial<HlsConfig>, bufferTargetSeconds: number): PlayerAbr {
  const keep = positiveOr(config.abrBandWidthFactor, HLS_ABR_DEFAULTS.abrBandWidthFactor);
  const up = positiveOr(config.abrBandWidthUpFactor, HLS_ABR_DEFAULTS.abrBandWidthUpFactor);
  return playerAbrOf('hls.js', keep, [
    { rule: `under hls.js's level choice (abrBandWidthFactor ${keep})`, reason: `it keeps the top rung only while the bandwidth estimate × ${keep} reaches it`, throughputMultiple: 1 / keep },
    { rule: `under hls.js's level choice (abrBandWidthUpFactor ${up})`, reason: `it steps up to the top rung only when the bandwidth estimate × ${up} reaches it`, throughputMultiple: 1 / up },
    {
      rule: `under hls.js's emergency abandon rule`,
      reason: `it aborts a fragment still loading after half its duration when the rest would outlast the buffer`,
      throughputMultiple: 1 / HLS_ABR_DEFAULTS.abandonCheckAfterShareOfDuration,
      at: { where: 'below one segment of buffer (the segment duration is unknown, so c0 and c1 alike)' },
    },
  ], bufferTargetSeconds);
}

/**
 * Pace-only mode: what hls.js 1.7's own ABR needs from a paced download, read from its config.
 * Why each multiple, with hls.js 1.7.4's source lines: ../README.md, "Why each multiple" (under Pace-only mode).
 */
import type { HlsConfig } from 'hls.js';
import { playerAbrOf, positiveOr, type PlayerAbr } from 'sammy-pacing-core';

/** hls.js 1.7's defaults (src/config.ts); the abandon rule watches a fragment after that share of its duration (abr-controller.ts:302). */
export const HLS_ABR_DEFAULTS = Object.freeze({
  abrBandWidthFactor: 0.95,
  abrBandWidthUpFactor: 0.7,
  maxBufferLength: 30,
  abandonCheckAfterShareOfDuration: 0.5,
});

/** The requirements of hls.js's ABR as this config stands; `bufferTargetSeconds`: hls.js's buffer target. */
export function hlsAbrRequirements(config: Partial<HlsConfig>, bufferTargetSeconds: number): PlayerAbr {
  const keep = positiveOr(config.abrBandWidthFactor, HLS_ABR_DEFAULTS.abrBandWidthFactor);
  const up = positiveOr(config.abrBandWidthUpFactor, HLS_ABR_DEFAULTS.abrBandWidthUpFactor);
  return playerAbrOf(
    'hls.js',
    keep,
    [
      {
        rule: `under hls.js's level choice (abrBandWidthFactor ${keep})`,
        reason: `it keeps the top rung only while the bandwidth estimate × ${keep} reaches it`,
        throughputMultiple: 1 / keep,
      },
      {
        rule: `under hls.js's level choice (abrBandWidthUpFactor ${up})`,
        reason: `it steps up to the top rung only when the bandwidth estimate × ${up} reaches it`,
        throughputMultiple: 1 / up,
      },
      {
        rule: `under hls.js's emergency abandon rule`,
        reason: `it aborts a fragment still loading after half its duration when the rest would outlast the buffer`,
        throughputMultiple: 1 / HLS_ABR_DEFAULTS.abandonCheckAfterShareOfDuration,
        at: { where: 'below one segment of buffer (the segment duration is unknown, so c0 and c1 alike)' },
      },
    ],
    bufferTargetSeconds,
  );
}

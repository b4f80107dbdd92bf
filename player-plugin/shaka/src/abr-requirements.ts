// Pace-only mode: what Shaka Player 5's own ABR (SimpleAbrManager) needs from a paced download under its `abr`
// settings. Why, from Shaka 5.2's sources file by file and line by line: README.md, "Pace-only mode".
import { playerAbrOf, positiveOr, type PlayerAbr } from 'sammy-pacing-core';
import type { AbrConfiguration } from './shaka.js';

/** Shaka 5.2's defaults (lib/util/player_configuration.js), for settings a player does not report. */
export const SHAKA_ABR_DEFAULTS = Object.freeze({ bandwidthDowngradeTarget: 0.95, bandwidthUpgradeTarget: 0.85, minBytes: 16e3 });

/** The requirements of Shaka's SimpleAbrManager under these `abr` settings. */
export function shakaAbrRequirements(
  abr: Partial<Pick<AbrConfiguration, 'bandwidthDowngradeTarget'>> | undefined,
  bufferTargetSeconds: number,
): PlayerAbr {
  const target = positiveOr(abr?.bandwidthDowngradeTarget, SHAKA_ABR_DEFAULTS.bandwidthDowngradeTarget);
  const rule = `under Shaka's SimpleAbrManager (abr.bandwidthDowngradeTarget ${target})`;
  const reason = `it keeps, or steps up to, the top variant only while its bandwidth estimate × ${target} reaches that variant's bandwidth (video + audio)`;
  return playerAbrOf('Shaka Player', target, [{ rule, reason, throughputMultiple: 1 / target }], bufferTargetSeconds);
}

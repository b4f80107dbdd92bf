/**
 * Pace-only mode: what dash.js 5's own ABR rules need from a paced download, read from its settings.
 * Where each figure comes from in dash.js 5.2.1's sources, and why each multiple: the README's "Pace-only mode".
 */
import { playerAbrOf, positiveOr, type PlayerAbr } from 'sammy-pacing-core';
import { DASH_BUILT_IN_RULES, type DashSettingsLike } from './player.js';

/** dash.js 5.2.1's defaults (core/Settings.js) for settings a player does not report; `bufferTimeDefaultFallback`: MediaPlayerModel's when bufferTimeDefault ≤ 0 (DEFAULT_MIN_BUFFER_TIME_FAST_SWITCH, the larger). */
export const DASH_ABR_DEFAULTS = Object.freeze({
  bandwidthSafetyFactor: 0.9,
  insufficientBufferSafetyFactor: 0.7,
  abandonDurationMultiplier: 1.8,
  bufferTimeDefault: 18,
  bufferTimeDefaultFallback: 20,
});

/** The requirements of the dash.js rules that are active in these settings. */
export function dashAbrRequirements(settings: DashSettingsLike, bufferTargetSeconds: number): PlayerAbr {
  const { abr, buffer } = settings.streaming ?? {};
  const rules = abr?.rules ?? {};
  const active = (name: (typeof DASH_BUILT_IN_RULES)[number]) => rules[name]?.active === true;
  const safety = positiveOr(abr?.throughput?.bandwidthSafetyFactor, DASH_ABR_DEFAULTS.bandwidthSafetyFactor);
  const factor = positiveOr(
    rules.insufficientBufferRule?.parameters?.throughputSafetyFactor,
    DASH_ABR_DEFAULTS.insufficientBufferSafetyFactor,
  );
  const multiplier = positiveOr(
    rules.abandonRequestsRule?.parameters?.abandonDurationMultiplier,
    DASH_ABR_DEFAULTS.abandonDurationMultiplier,
  );
  const below = positiveOr(buffer?.bufferTimeDefault, DASH_ABR_DEFAULTS.bufferTimeDefaultFallback);
  // With no quality rule active at all, dash.js installs BOLA and ThroughputRule anyway; pace-only adds no rule of its own.
  const fallback = !DASH_BUILT_IN_RULES.some((name) => name !== 'abandonRequestsRule' && active(name));
  const names = [(active('throughputRule') || fallback) && 'ThroughputRule', (active('bolaRule') || fallback) && 'BolaRule']
    .filter(Boolean)
    .join(' and ');
  const requirements = [
    !!names && {
      rule: `under dash.js's ${names} (bandwidthSafetyFactor ${safety})`,
      reason: `they pick, or step up to, the top rung only when the throughput estimate × ${safety} reaches it`,
      throughputMultiple: 1 / safety,
    },
    active('insufficientBufferRule') && {
      rule: `under dash.js's InsufficientBufferRule (throughputSafetyFactor ${factor})`,
      reason: `it caps the bitrate at estimate × ${factor} × buffer / segment duration`,
      throughputMultiple: 1 / factor,
      at: { where: 'at one segment of buffer (the segment duration is unknown, so c0 and c1 alike)' },
    },
    active('abandonRequestsRule') && {
      rule: `under dash.js's AbandonRequestsRule (abandonDurationMultiplier ${multiplier})`,
      reason: `it aborts a download projected to take ${multiplier} × the segment duration while the buffer is at most ${below} s`,
      throughputMultiple: 1 / multiplier,
      toBufferSeconds: below,
    },
  ];
  return playerAbrOf(
    'dash.js',
    safety,
    requirements.filter((r) => r !== false),
    bufferTargetSeconds,
  );
}

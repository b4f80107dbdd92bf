/**
 * Pace-only mode: what dash.js 5's own ABR rules need from a paced download, read from its
 * settings. Every figure below comes from dash.js 5.2.1's sources (paths under its `src/`):
 *
 * - Measured throughput (`models/ThroughputModel.js:194-219`): bytes over `responseEnd −
 *   responseStart` (Resource Timing) or over the XHR progress traces, without the request's
 *   latency (`useDeadTimeLatency`, default true). A paced download therefore measures the pace
 *   less header and framing overhead. The estimate (`controllers/ThroughputController.js`) is an
 *   EWMA (default, `min(fast, slow)`, lines 365-376) or a sliding-window mean of those samples:
 *   every mode is a weighted mean, never below the lowest sample it spans, so a pace that is
 *   never below a level keeps the estimate at or above it.
 * - ThroughputRule (`rules/abr/ThroughputRule.js:66,75`) picks the highest rung at or below
 *   `getSafeAverageThroughput` = estimate × `bandwidthSafetyFactor` (0.9,
 *   `ThroughputController.js:429`), at every buffer level. BOLA (DYNAMIC above
 *   `hybridSwitchBufferTime`, 12 s, `controllers/AbrController.js:995-998`) starts from the same
 *   safe throughput and may step up only to the rung it sustains (BOLA-O,
 *   `rules/abr/BolaRule.js:481,524-528`). Both: measured ≥ top / bandwidthSafetyFactor.
 * - InsufficientBufferRule (`rules/abr/InsufficientBufferRule.js:101-109`) caps the bitrate at
 *   estimate × `throughputSafetyFactor` (0.7) × buffer / segment duration, at every buffer level.
 *   At one segment of buffer it needs measured ≥ top / 0.7; below that no pace is enough (nor is
 *   an unpaced link slower than it), above it less. The segment duration is not known when
 *   attaching, so the pace at one segment of buffer may be anywhere from c0 to c1: both must clear it.
 * - AbandonRequestsRule (`rules/abr/AbandonRequestsRule.js:72-75,102-108`) aborts a download whose
 *   projected time `bytesTotal × 8 / throughput` reaches `abandonDurationMultiplier` (1.8) × the
 *   segment duration, while the buffer is at most `bufferTimeDefault` (18 s;
 *   `models/MediaPlayerModel.js:294-307`). A top-rung segment paced at measured ≥ top / 1.8 is
 *   never aborted.
 *
 * SwitchHistoryRule and DroppedFramesRule read no throughput. Not covered: L2A and LoL+ (the
 * low-latency rules, off by default), `useDeadTimeLatency: false` (the request's latency then
 * counts as download time, a share the pace cannot bound), CMSD `etp` weighting, and
 * low-latency (fetch/chunked) timing.
 */
import { playerAbrOf, positiveOr, type PaceRequirement, type PlayerAbr } from 'sammy-pacing-core';
import type { DashSettingsLike } from './player.js';

/** dash.js 5.2.1's defaults (core/Settings.js), for settings a player does not report. */
export const DASH_ABR_DEFAULTS = Object.freeze({
  bandwidthSafetyFactor: 0.9,
  insufficientBufferSafetyFactor: 0.7,
  abandonDurationMultiplier: 1.8,
  bufferTimeDefault: 18,
  /** MediaPlayerModel's fallback when bufferTimeDefault ≤ 0 (DEFAULT_MIN_BUFFER_TIME_FAST_SWITCH, the larger). */
  bufferTimeDefaultFallback: 20,
});

/** dash.js's quality-switch rules (Constants.QUALITY_SWITCH_RULES). */
const QUALITY_RULES = ['throughputRule', 'bolaRule', 'insufficientBufferRule', 'switchHistoryRule', 'droppedFramesRule', 'l2ARule', 'loLPRule'];

/** The requirements of the dash.js rules that are active in these settings. */
export function dashAbrRequirements(settings: DashSettingsLike, bufferTargetSeconds: number): PlayerAbr {
  const s = settings.streaming ?? {};
  const rules = s.abr?.rules ?? {};
  const active = (name: string) => rules[name]?.active === true;
  const safety = positiveOr(s.abr?.throughput?.bandwidthSafetyFactor, DASH_ABR_DEFAULTS.bandwidthSafetyFactor);
  const requirements: PaceRequirement[] = [];

  // With no quality rule active at all, dash.js installs BOLA and ThroughputRule anyway
  // (rules/abr/ABRRulesCollection.js:99-112); pace-only adds no rule of its own.
  const fallback = !QUALITY_RULES.some(active);
  const throughputRule = active('throughputRule') || fallback;
  const bola = active('bolaRule') || fallback;
  if (throughputRule || bola) {
    const names = [throughputRule && 'ThroughputRule', bola && 'BolaRule'].filter(Boolean).join(' and ');
    requirements.push({
      rule: `under dash.js's ${names} (bandwidthSafetyFactor ${safety})`,
      reason: `they pick, or step up to, the top rung only when the throughput estimate × ${safety} reaches it`,
      throughputMultiple: 1 / safety,
      fromBufferSeconds: 0,
      toBufferSeconds: Infinity,
    });
  }
  if (active('insufficientBufferRule')) {
    const factor = positiveOr(rules.insufficientBufferRule?.parameters?.throughputSafetyFactor, DASH_ABR_DEFAULTS.insufficientBufferSafetyFactor);
    requirements.push({
      rule: `under dash.js's InsufficientBufferRule (throughputSafetyFactor ${factor})`,
      reason: `it caps the bitrate at estimate × ${factor} × buffer / segment duration`,
      throughputMultiple: 1 / factor,
      fromBufferSeconds: 0,
      toBufferSeconds: Infinity,
      at: { where: 'at one segment of buffer (the segment duration is unknown, so c0 and c1 alike)' },
    });
  }
  if (active('abandonRequestsRule')) {
    const multiplier = positiveOr(rules.abandonRequestsRule?.parameters?.abandonDurationMultiplier, DASH_ABR_DEFAULTS.abandonDurationMultiplier);
    const below = positiveOr(s.buffer?.bufferTimeDefault, DASH_ABR_DEFAULTS.bufferTimeDefaultFallback);
    requirements.push({
      rule: `under dash.js's AbandonRequestsRule (abandonDurationMultiplier ${multiplier})`,
      reason: `it aborts a download projected to take ${multiplier} × the segment duration while the buffer is at most ${below} s`,
      throughputMultiple: 1 / multiplier,
      fromBufferSeconds: 0,
      toBufferSeconds: below,
    });
  }
  return playerAbrOf('dash.js', safety, requirements, bufferTargetSeconds);
}

/**
 * Sammy for dash.js 5: picks the bitrate and a pace rate, and sends the pace rate as CMCD `rtp`
 * (or, in pace-only mode, keeps dash.js's own ABR and adds the pace).
 *
 *   import { attach } from 'sammy-pacing-dashjs';
 *   const sammy = attach(player); // before or after player.initialize()
 *   const paced = attach(player, { mode: 'pace-only' });
 */
export { attach, DEFAULT_INITIAL_BITRATE_KBPS, type SammyController, type SammyMode, type SammyOptions } from './attach.js';
export { dashAbrRequirements, DASH_ABR_DEFAULTS } from './abr-requirements.js';
export { SAMMY_RULE_NAME } from './rule.js';
export {
  defaultStore,
  memoryStore,
  DEFAULT_PARAMETERS,
  SammyConfigError,
  minimumMultiplier,
  type PaceRequirement,
  type PlayerAbr,
  type InitialThroughputStore,
  type MediaKind,
  type Phase,
  type SammyDecision,
  type SammyEvents,
  type SammyParameters,
  type SegmentSample,
} from 'sammy-pacing-core';
export type { CmcdMode } from 'sammy-pacing-protocol';

/**
 * Sammy for dash.js 5: picks the bitrate and a pace rate, and sends the pace rate as CMCD `rtp`
 * (or, in pace-only mode, keeps dash.js's own ABR and adds the pace: ./pace-only.ts).
 *
 *   import { attach } from 'sammy-pacing-dashjs';
 *   const sammy = attach(player); // before player.initialize(): dash.js builds its rules and loaders there
 */
export { attach, DEFAULT_INITIAL_BITRATE_KBPS, type PaceOnlyMode, type SammyController, type SammyMode, type SammyOptions } from './attach.js';
export { SAMMY_RULE_NAME } from './rule.js';
export {
  defaultStore,
  memoryStore,
  DEFAULT_PARAMETERS,
  PRESETS,
  SammyConfigError,
  minimumMultiplier,
  type InitialThroughputStore,
  type MediaKind,
  type Phase,
  type SammyDecision,
  type SammyEvents,
  type SammyParameters,
  type SegmentSample,
} from 'sammy-pacing-core';
export type { CmcdMode } from 'sammy-pacing-protocol';

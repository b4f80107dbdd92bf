/**
 * Sammy for dash.js 5 (pace-only mode: ./pace-only.ts). `const sammy = attach(player)` before
 * `player.initialize()`: dash.js builds its rules and loaders there.
 */
export { attach, DEFAULT_INITIAL_BITRATE_KBPS, type PaceOnlyMode, type SammyController, type SammyOptions } from './attach.js';
export { SAMMY_RULE_NAME } from './rule.js';
export { defaultStore, memoryStore, DEFAULT_PARAMETERS, PRESETS, SammyConfigError, minimumMultiplier } from 'sammy-pacing-core';
export type {
  InitialThroughputStore,
  MediaKind,
  Phase,
  SammyDecision,
  SammyEvents,
  SammyMode,
  SammyParameters,
  SegmentSample,
} from 'sammy-pacing-core';
export type { CmcdMode } from 'sammy-pacing-protocol';

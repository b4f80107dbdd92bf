/**
 * Sammy for Shaka Player 5: `attach(player)` before `player.load()` picks the variant and a pace rate, sent as
 * CMCD `rtp` (pace-only mode, `attach(player, { mode: paceOnly })` from 'sammy-pacing-shaka/pace-only': Shaka's ABR picks).
 */
export { attach, type PaceOnlyMode, type SammyController, type SammyOptions } from './attach.js';
export type { SammyAbrManager } from './abr-manager.js';
export { defaultStore, memoryStore, DEFAULT_PARAMETERS, PRESETS, SammyConfigError } from 'sammy-pacing-core';
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

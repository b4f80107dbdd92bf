/**
 * Sammy for Shaka Player 5: picks the variant and a pace rate, and sends the pace rate as CMCD
 * `rtp` (or, in pace-only mode, keeps Shaka's own ABR and adds the pace).
 *
 *   import { attach } from 'sammy-pacing-shaka';
 *   const sammy = attach(player); // before player.load()
 *   // pace-only: import { paceOnly } from 'sammy-pacing-shaka/pace-only'; attach(player, { mode: paceOnly })
 */
export { attach, type PaceOnlyMode, type SammyController, type SammyMode, type SammyOptions } from './attach.js';
export type { SammyAbrManager } from './abr-manager.js';
export {
  defaultStore,
  memoryStore,
  DEFAULT_PARAMETERS,
  PRESETS,
  SammyConfigError,
  type InitialThroughputStore,
  type MediaKind,
  type Phase,
  type SammyDecision,
  type SammyEvents,
  type SammyParameters,
  type SegmentSample,
} from 'sammy-pacing-core';
export type { CmcdMode } from 'sammy-pacing-protocol';

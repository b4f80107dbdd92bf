/**
 * Sammy for dash.js 5: picks the bitrate and a pace rate, and sends the pace rate as CMCD `rtp`.
 *
 *   import { attach } from '@sammy/player-plugin';
 *   const sammy = attach(player); // before or after player.initialize()
 */
export { attach, DEFAULT_INITIAL_BITRATE_KBPS, type SammyController, type SammyEvents, type SammyOptions } from './dashjs/attach.js';
export { SAMMY_RULE_NAME } from './dashjs/rule.js';
export { defaultStore, InitialThroughputHistory, memoryStore, INITIAL_HISTORY_KEY, INITIAL_HISTORY_LIMIT, type InitialThroughputStore } from './initial-history.js';
export { DEFAULT_PARAMETERS, SammyConfigError, minimumMultiplier } from './policy/parameters.js';
export type { CmcdMode, MediaKind, Phase, SammyDecision, SammyParameters, SegmentSample } from './types.js';

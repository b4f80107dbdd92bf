/** Sammy's player-independent core: the pure algorithm and the per-session state behind every player adapter. */
export * from './policy/index.js';
export { Emitter } from './emitter.js';
export { defaultStore, InitialThroughputHistory, memoryStore, INITIAL_HISTORY_KEY, INITIAL_HISTORY_LIMIT, type InitialThroughputStore } from './initial-history.js';
export type { CmcdMode, MediaKind, Phase, SammyDecision, SammyParameters, SegmentSample } from './types.js';

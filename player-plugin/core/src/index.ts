/**
 * Sammy's player-independent core: the pure algorithm (policy/), every tunable (config.ts), and
 * the per-session state behind every player adapter (session/).
 */
export * from './config.js';
export * from './policy/index.js';
export { createSession, SammySession, type SammyControl, type SessionConfig } from './session/session.js';
export type { SammyDecision, SammyEvents, SegmentRequest, SegmentSample, TrackState } from './session/types.js';
export { Emitter } from './emitter.js';
export { defaultStore, InitialThroughputHistory, memoryStore, INITIAL_HISTORY_KEY, type InitialThroughputStore } from './initial-history.js';
export { paceOnlyModeOf, type AdapterController, type AdapterOptions, type PaceOnlyMode, type SammyMode } from './adapter.js';

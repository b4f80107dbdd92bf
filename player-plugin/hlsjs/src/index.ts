/**
 * Sammy for hls.js: `attach(new Hls(sammyConfig(config)))` picks the level and a pace rate, sent as
 * CMCD `rtp` in hls.js's own CMCD payload. Pace-only mode comes from its own entry (./pace-only.ts).
 */
export { attach, sammyConfig, type PaceOnlyMode, type SammyController, type SammyOptions } from './attach.js';
export { sammyAbrController } from './abr-controller.js';
export { sammyFragmentLoader } from './loader.js';
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

/**
 * Sammy for hls.js: picks the level and a pace rate, and sends the pace rate as CMCD `rtp` in
 * hls.js's own CMCD payload (or, in pace-only mode, keeps hls.js's own ABR and adds the pace).
 *
 *   import Hls from 'hls.js';
 *   import { attach, sammyConfig } from 'sammy-pacing-hlsjs';
 *   const hls = new Hls(sammyConfig({ ...yourConfig }));
 *   const sammy = attach(hls);
 *
 * Pace-only mode comes from its own entry (./pace-only.ts): `attach(hls, { mode: paceOnly })`.
 */
export { attach, type PaceOnlyMode, type SammyController, type SammyMode, type SammyOptions } from './attach.js';
export { sammyConfig } from './config.js';
export { sammyAbrController } from './abr-controller.js';
export { sammyFragmentLoader } from './loader.js';
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

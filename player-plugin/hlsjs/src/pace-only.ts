/**
 * Pace-only mode, an entry of its own (`sammy-pacing-hlsjs/pace-only`) so that an app in the
 * default mode does not bundle it: hls.js's own ABR keeps picking levels; Sammy adds the pace,
 * the initial phase and the start estimate from the history, and refuses a pace that would starve
 * hls.js's ABR (its requirements: ./abr-requirements.ts; the check: sammy-pacing-core).
 *
 *   import { attach, sammyConfig } from 'sammy-pacing-hlsjs';
 *   import { paceOnly } from 'sammy-pacing-hlsjs/pace-only';
 *   const sammy = attach(new Hls(sammyConfig()), { mode: paceOnly });
 */
import { hlsAbrRequirements } from './abr-requirements.js';
import type { PaceOnlyMode } from './attach.js';

export const paceOnly: PaceOnlyMode = Object.freeze<PaceOnlyMode>({
  name: 'pace-only',
  playerAbr: hlsAbrRequirements,
});

export { hlsAbrRequirements, HLS_ABR_DEFAULTS } from './abr-requirements.js';
export type { PaceOnlyMode } from './attach.js';
export type { PaceRequirement, PlayerAbr } from 'sammy-pacing-core';

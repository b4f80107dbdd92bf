/**
 * Pace-only mode, an entry of its own (`sammy-pacing-hlsjs/pace-only`) so that the default mode
 * does not bundle it: `attach(hls, { mode: paceOnly })` keeps hls.js's own ABR and adds the pace,
 * refused where it would starve that ABR (./abr-requirements.ts).
 */
import { hlsAbrRequirements } from './abr-requirements.js';
import type { PaceOnlyMode } from './attach.js';

export const paceOnly: PaceOnlyMode = Object.freeze<PaceOnlyMode>({ name: 'pace-only', playerAbr: hlsAbrRequirements });

export { hlsAbrRequirements, HLS_ABR_DEFAULTS } from './abr-requirements.js';
export type { PaceOnlyMode } from './attach.js';
export type { PaceRequirement, PlayerAbr } from 'sammy-pacing-core';

/**
 * Pace-only mode, an entry of its own (`sammy-pacing-shaka/pace-only`) so that an app in the
 * default mode does not bundle it: Shaka's own ABR (SimpleAbrManager, or whatever `abrFactory`
 * was configured before attach) keeps choosing variants; Sammy adds the pace, the initial phase
 * and Shaka's start estimate from the history, and refuses a pace that would starve Shaka's ABR
 * (its requirements: ./abr-requirements.ts; the check: sammy-pacing-core).
 *
 *   import { attach } from 'sammy-pacing-shaka';
 *   import { paceOnly } from 'sammy-pacing-shaka/pace-only';
 *   const sammy = attach(player, { mode: paceOnly });
 */
import { shakaAbrRequirements } from './abr-requirements.js';
import type { PaceOnlyMode } from './attach.js';

export const paceOnly: PaceOnlyMode = Object.freeze<PaceOnlyMode>({ name: 'pace-only', playerAbr: shakaAbrRequirements });

export { shakaAbrRequirements, SHAKA_ABR_DEFAULTS } from './abr-requirements.js';
export type { PaceOnlyMode } from './attach.js';
export type { PaceRequirement, PlayerAbr } from 'sammy-pacing-core';

// Pace-only mode, `attach(player, { mode: paceOnly })`, an entry of its own so that an app in the default mode does
// not bundle it: Shaka's own ABR keeps choosing; Sammy adds the pace, the initial phase and Shaka's start estimate
// from the history, and refuses a pace that would starve Shaka's ABR (abr-requirements.ts).
import { shakaAbrRequirements } from './abr-requirements.js';
import type { PaceOnlyMode } from './attach.js';

export const paceOnly: PaceOnlyMode = Object.freeze<PaceOnlyMode>({ name: 'pace-only', playerAbr: shakaAbrRequirements });

export { shakaAbrRequirements, SHAKA_ABR_DEFAULTS } from './abr-requirements.js';
export type { PaceOnlyMode } from './attach.js';
export type { PaceRequirement, PlayerAbr } from 'sammy-pacing-core';

/**
 * Pace-only mode, an entry of its own so that an app in Sammy's own mode does not bundle it:
 * `attach(player, { mode: paceOnly })` keeps dash.js's ABR, adds the pace, and refuses a pace
 * that would starve dash.js's active rules (their requirements: ./abr-requirements.ts).
 */
import { dashAbrRequirements } from './abr-requirements.js';
import type { PaceOnlyMode } from './attach.js';

export const paceOnly: PaceOnlyMode = Object.freeze<PaceOnlyMode>({ name: 'pace-only', playerAbr: dashAbrRequirements });

export { dashAbrRequirements, DASH_ABR_DEFAULTS } from './abr-requirements.js';
export type { PaceOnlyMode } from './attach.js';
export type { DashSettingsLike, DashRuleSettingsLike } from './player.js';
export type { PaceRequirement, PlayerAbr } from 'sammy-pacing-core';

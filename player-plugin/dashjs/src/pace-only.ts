/**
 * Pace-only mode, an entry of its own (`sammy-pacing-dashjs/pace-only`) so that an app in the
 * default mode does not bundle it: dash.js's own ABR keeps picking bitrates; Sammy adds the pace,
 * the initial phase and the start bitrate from the history, and refuses a pace that would starve
 * dash.js's active rules (their requirements: ./abr-requirements.ts; the check: sammy-pacing-core).
 *
 *   import { attach } from 'sammy-pacing-dashjs';
 *   import { paceOnly } from 'sammy-pacing-dashjs/pace-only';
 *   const sammy = attach(player, { mode: paceOnly });
 */
import { dashAbrRequirements } from './abr-requirements.js';
import type { PaceOnlyMode } from './attach.js';

export const paceOnly: PaceOnlyMode = Object.freeze<PaceOnlyMode>({
  name: 'pace-only',
  playerAbr: dashAbrRequirements,
});

export { dashAbrRequirements, DASH_ABR_DEFAULTS } from './abr-requirements.js';
export type { PaceOnlyMode } from './attach.js';
export type { DashSettingsLike, DashRuleSettingsLike } from './player.js';
export type { PaceRequirement, PlayerAbr } from 'sammy-pacing-core';

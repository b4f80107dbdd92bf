/**
 * The public surface every player adapter shares (sammy-pacing-dashjs, -shaka, -hlsjs): the
 * options `attach` takes besides the tunables, the controller it returns, and the pace-only mode
 * object. Each adapter narrows the player-specific parts (its settings type) and documents its own
 * defaults; the shapes, and the check of the mode option, are defined once here.
 */
import type { CmcdMode } from 'sammy-pacing-protocol';
import type { SammyParameters } from '../config.js';
import type { InitialThroughputStore } from '../initial-history.js';
import type { PlayerAbr } from '../policy/pace-requirements.js';
import type { SammyControl } from '../session/session.js';

/**
 * 'sammy': Sammy's bitrate choice replaces the player's ABR, and paces. 'pace-only': the player's
 * own ABR keeps choosing; Sammy adds the pace, the initial phase and the player's start estimate
 * from the initial-phase history.
 */
export type SammyMode = 'sammy' | 'pace-only';

/**
 * Pace-only mode as `attach` takes it: `paceOnly` from the adapter's own `/pace-only` entry, so
 * that an app in the default mode bundles neither the player's ABR requirements nor the general
 * pace check.
 */
export interface PaceOnlyMode<PlayerSettings> {
  readonly name: 'pace-only';
  /** What the player's ABR needs from the pace under these settings (re-read at every `update`). */
  playerAbr(settings: PlayerSettings, bufferTargetSeconds: number): PlayerAbr;
}

export interface AdapterOptions<Mode> extends Partial<SammyParameters> {
  /** 'sammy' (default), or `paceOnly` from the adapter's `/pace-only` entry. Fixed for the attachment. */
  mode?: 'sammy' | Mode;
  /** Start with Sammy on. Default true. */
  enabled?: boolean;
  /** Where CMCD travels. */
  cmcdMode?: CmcdMode;
  /** The player's buffer target, seconds (the pace counts a share of it as full); the parameters are validated at it. Default: the player's own. */
  bufferTargetSeconds?: number;
  /** Where initial-phase throughput persists. Default: localStorage, or memory. */
  initialHistory?: InitialThroughputStore;
}

export interface AdapterController extends SammyControl {
  readonly mode: SammyMode;
  readonly cmcdMode: CmcdMode;
  setCmcdMode(mode: CmcdMode): void;
  /** Removes everything attach installed and restores what it changed in the player. */
  detach(): void;
}

/**
 * The `mode` option: the pace-only mode object, or undefined for Sammy's own mode; anything else
 * is a TypeError naming the entry the mode object comes from (`entry`: 'sammy-pacing-dashjs/pace-only').
 */
export function paceOnlyModeOf<Mode extends PaceOnlyMode<never>>(mode: unknown, entry: string): Mode | undefined {
  if (mode === undefined || mode === 'sammy') return undefined;
  if ((mode as Mode | null)?.name === 'pace-only' && typeof (mode as Mode).playerAbr === 'function') return mode as Mode;
  throw new TypeError(`Sammy: mode must be 'sammy' or 'pace-only' (paceOnly from '${entry}'), got ${String(mode)}`);
}

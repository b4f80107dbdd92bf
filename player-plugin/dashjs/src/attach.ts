/**
 * `attach(player)`: installs Sammy in a dash.js 5 player. dash.js keeps doing everything it
 * does; Sammy replaces its ABR rules with one rule (pace-only mode, `attach(player, { mode:
 * paceOnly })` with `paceOnly` from ./pace-only.ts: keeps dash.js's own), and
 * rewrites each media request's CMCD so that `rtp` is this request's pace rate (or absent),
 * never dash.js's own formula. Everything Sammy decides is in the session core
 * (sammy-pacing-core); this file only wires dash.js to it.
 */
import type { MediaPlayerClass } from 'dashjs';
import {
  createSession,
  DEFAULT_PARAMETERS,
  paceOnlyModeOf,
  type AdapterController,
  type AdapterOptions,
  type PaceOnlyMode as CorePaceOnlyMode,
  type SammyMode,
} from 'sammy-pacing-core';
import { checkCmcdMode, type CmcdMode } from 'sammy-pacing-protocol';
import { createInterceptors } from './interceptors.js';
import { extendLoaderAborts } from './loader-aborts.js';
import { PLAYBACK_EVENTS, playbackEvent } from './playback-events.js';
import type { DashSettingsLike, PlayerEventLike, PlayerLike } from './player.js';
import { createRuleFactory, SAMMY_RULE_NAME } from './rule.js';
import { applySettings, restoreSettings, setStartBitrate, snapshotSettings } from './settings.js';
import { bufferLevelSeconds, playerMaxBufferSeconds, stepUpRefetchSeconds } from './stream.js';

export type { SammyMode } from 'sammy-pacing-core';

/**
 * Pace-only mode (`paceOnly` from 'sammy-pacing-dashjs/pace-only'): dash.js's own ABR rules stay
 * (DYNAMIC: BOLA, throughput, insufficient buffer, abandon). `playerAbr`: dash.js's active rules
 * as these settings stand; `maxBufferSeconds`: the option, undefined when not given.
 */
export type PaceOnlyMode = CorePaceOnlyMode<DashSettingsLike, number | undefined>;

export interface SammyOptions extends AdapterOptions<PaceOnlyMode> {
  /** Where CMCD travels. Default 'query'. */
  cmcdMode?: CmcdMode;
  /**
   * Buffer level counted as full, seconds; the parameters are validated at it. Default: dash.js's
   * buffer target at top quality (`streaming.buffer.bufferTimeAtTopQuality`, or …LongForm for
   * long content; the smaller of the two for the validation).
   */
  maxBufferSeconds?: number;
}

/** `detach()` restores the dash.js settings attach changed. */
export type SammyController = AdapterController;

/** dash.js's own first pick when it knows nothing (its DEFAULT_VIDEO_BITRATE), kbps. */
export const DEFAULT_INITIAL_BITRATE_KBPS = DEFAULT_PARAMETERS.initialVideoBitrateKbps;

export function attach(mediaPlayer: MediaPlayerClass, options: SammyOptions = {}): SammyController {
  const player = mediaPlayer as unknown as PlayerLike;
  const { mode: requestedMode, enabled, cmcdMode: requestedCmcdMode, maxBufferSeconds, initialHistory, ...parameters } = options;
  const paceOnlyMode = paceOnlyModeOf<PaceOnlyMode>(requestedMode, 'sammy-pacing-dashjs/pace-only');
  const paceOnly = paceOnlyMode !== undefined;
  const mode: SammyMode = paceOnly ? 'pace-only' : 'sammy';
  // Pace-only: dash.js's rules as its settings stand now, so a pace that would starve them is refused here.
  const playerAbr = () => paceOnlyMode?.playerAbr(player.getSettings(), maxBufferSeconds);
  // The level counted full, for the validation as for the pace: the option, else dash.js's target
  // at top quality — the level it fills to while fetching the top rung, which the pace is for;
  // of its two (long-form content or not: not known yet) the smaller, so never above what a
  // request later counts full (the interceptors: the option or playerMaxBufferSeconds), and the
  // session, which never paces a buffer as full below this level, paces as each request says.
  // Not bufferTimeDefault, dash.js's target below top quality: no request counts it full.
  const full = maxBufferSeconds ?? Math.min(playerMaxBufferSeconds(player, false), playerMaxBufferSeconds(player, true));
  const session = createSession({ parameters, enabled, history: initialHistory, playerAbr: playerAbr(), maxBufferSeconds: full });
  let cmcdMode = checkCmcdMode(requestedCmcdMode ?? 'query');
  const original = snapshotSettings(player);
  // dash.js's first pick: Sammy's; in pace-only mode only once the history has something to say.
  const startBitrateKbps = () => (paceOnly && !session.hasHistory ? undefined : session.startBitrateKbps());
  let startBitrate = startBitrateKbps();
  const apply = () => applySettings(player, original, { enabled: session.enabled, paceOnly, startBitrateKbps: (startBitrate = startBitrateKbps()) });

  const rule = createRuleFactory((mediaType, ladderKbps) => {
    const choice = session.chooseBitrate({ mediaType, ladderKbps, bufferLevelSeconds: bufferLevelSeconds(player, mediaType), stepUpRefetchSeconds: stepUpRefetchSeconds(player) });
    if (!choice) return undefined;
    const x = choice.throughputKbps === undefined ? 'none' : `${Math.round(choice.throughputKbps)} kbps`;
    return { bitrateKbps: choice.bitrateKbps, reason: `[Sammy] ${choice.phase} phase, estimate ${x}` };
  });
  const interceptors = createInterceptors({
    player,
    session,
    cmcdMode: () => cmcdMode,
    maxBufferSeconds,
    onSample() {
      const next = startBitrateKbps();
      if (session.enabled && next !== undefined && next !== startBitrate) setStartBitrate(player, (startBitrate = next));
    },
  });
  const listeners = PLAYBACK_EVENTS.map(([name, type]) => [name, (e: PlayerEventLike) => session.playback(playbackEvent(type, e))] as const);

  if (!paceOnly) player.addABRCustomRule('qualitySwitchRules', SAMMY_RULE_NAME, rule);
  extendLoaderAborts(player);
  player.addRequestInterceptor(interceptors.request);
  player.addResponseInterceptor(interceptors.response);
  for (const [type, listener] of listeners) player.on(type, listener);
  apply();

  let attached = true;
  return {
    get enabled() {
      return session.enabled;
    },
    setEnabled(on: boolean) {
      if (on === session.enabled) return;
      session.setEnabled(on);
      apply();
    },
    get parameters() {
      return session.parameters;
    },
    update: (changes) => session.update(changes, playerAbr()),
    get mode() {
      return mode;
    },
    get cmcdMode() {
      return cmcdMode;
    },
    setCmcdMode(next: CmcdMode) {
      cmcdMode = checkCmcdMode(next);
    },
    get phase() {
      return session.phase;
    },
    on: (event, listener) => session.on(event, listener),
    detach() {
      if (!attached) return;
      attached = false;
      if (!paceOnly) player.removeABRCustomRule(SAMMY_RULE_NAME);
      player.removeRequestInterceptor(interceptors.request);
      player.removeResponseInterceptor(interceptors.response);
      for (const [type, listener] of listeners) player.off(type, listener);
      restoreSettings(player, original, paceOnly);
      session.destroy();
    },
  };
}

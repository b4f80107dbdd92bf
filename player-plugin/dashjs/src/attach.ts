/**
 * `attach(player)`: installs Sammy in a dash.js 5 player. dash.js keeps doing everything it
 * does; Sammy replaces its ABR rules with one rule, and rewrites each media request's CMCD so
 * that `rtp` is this request's pace rate (or absent), never dash.js's own formula. Everything
 * Sammy decides is in the session core (sammy-pacing-core); this file only wires dash.js to it.
 */
import type { MediaPlayerClass } from 'dashjs';
import { createSession, DEFAULT_PARAMETERS, type InitialThroughputStore, type SammyControl, type SammyParameters } from 'sammy-pacing-core';
import { isCmcdMode, type CmcdMode } from 'sammy-pacing-protocol';
import { createInterceptors } from './interceptors.js';
import { PLAYBACK_EVENTS } from './playback-events.js';
import type { PlayerEventLike, PlayerLike } from './player.js';
import { createRuleFactory, SAMMY_RULE_NAME } from './rule.js';
import { applySettings, restoreSettings, setStartBitrate, snapshotSettings } from './settings.js';
import { bufferLevelSeconds } from './stream.js';

export interface SammyOptions extends Partial<SammyParameters> {
  /** Start with Sammy on. Default true. */
  enabled?: boolean;
  /** Where CMCD travels. Default 'query'. */
  cmcdMode?: CmcdMode;
  /** Buffer level counted as full, seconds. Default: dash.js's buffer target at top quality. */
  maxBufferSeconds?: number;
  /** Where initial-phase throughput persists. Default: localStorage, or memory. */
  initialHistory?: InitialThroughputStore;
}

export interface SammyController extends SammyControl {
  readonly cmcdMode: CmcdMode;
  setCmcdMode(mode: CmcdMode): void;
  /** Removes everything attach installed and restores the settings it changed. */
  detach(): void;
}

/** dash.js's own first pick when it knows nothing (its DEFAULT_VIDEO_BITRATE), kbps. */
export const DEFAULT_INITIAL_BITRATE_KBPS = DEFAULT_PARAMETERS.initialVideoBitrateKbps;

function checkCmcdMode(mode: unknown): CmcdMode {
  if (!isCmcdMode(mode)) throw new TypeError(`Sammy: cmcdMode must be 'query' or 'header', got ${String(mode)}`);
  return mode;
}

export function attach(mediaPlayer: MediaPlayerClass, options: SammyOptions = {}): SammyController {
  const player = mediaPlayer as unknown as PlayerLike;
  const { enabled, cmcdMode: mode, maxBufferSeconds, initialHistory, ...parameters } = options;
  const session = createSession({ parameters, enabled, history: initialHistory });
  let cmcdMode = checkCmcdMode(mode ?? 'query');
  const original = snapshotSettings(player);
  let startBitrate = session.startBitrateKbps();
  const apply = () => applySettings(player, original, session.enabled, (startBitrate = session.startBitrateKbps()));

  const rule = createRuleFactory((mediaType, ladderKbps) => {
    const choice = session.chooseBitrate({ mediaType, ladderKbps, bufferLevelSeconds: bufferLevelSeconds(player, mediaType) });
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
      if (session.enabled && session.startBitrateKbps() !== startBitrate) setStartBitrate(player, (startBitrate = session.startBitrateKbps()));
    },
  });
  const listeners = PLAYBACK_EVENTS.map(([type, toEvent]) => [type, (e: PlayerEventLike) => session.playback(toEvent(e))] as const);

  player.addABRCustomRule('qualitySwitchRules', SAMMY_RULE_NAME, rule);
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
    update: (changes) => session.update(changes),
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
      player.removeABRCustomRule(SAMMY_RULE_NAME);
      player.removeRequestInterceptor(interceptors.request);
      player.removeResponseInterceptor(interceptors.response);
      for (const [type, listener] of listeners) player.off(type, listener);
      restoreSettings(player, original);
      session.destroy();
    },
  };
}

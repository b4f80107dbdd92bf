/**
 * `attach(player)`: installs Sammy in a dash.js 5 player. dash.js keeps doing everything it
 * does; Sammy replaces its ABR rules with one rule (pace-only mode, `attach(player, { mode:
 * paceOnly })` with `paceOnly` from ./pace-only.ts: keeps dash.js's own), and
 * rewrites each media request's CMCD so that `rtp` is this request's pace rate (or absent),
 * never dash.js's own formula. What every adapter shares is core's adapter kit; this file
 * describes dash.js to it and wires dash.js's hooks.
 */
import type { MediaPlayerClass } from 'dashjs';
import { createAdapterKit, DEFAULT_PARAMETERS, type AdapterController, type AdapterOptions, type PaceOnlyMode as CorePaceOnlyMode } from 'sammy-pacing-core';
import type { CmcdMode } from 'sammy-pacing-protocol';
import { extendLoaderAborts } from './loader-aborts.js';
import { PLAYBACK_EVENTS, playbackEvent } from './playback-events.js';
import type { DashSettingsLike } from './player.js';
import { createInterceptors } from './requests.js';
import { createRuleFactory, SAMMY_RULE_NAME } from './rule.js';
import { dashSettings } from './settings.js';
import { playerBufferTargetSeconds } from './stream.js';

export type { SammyMode } from 'sammy-pacing-core';

/**
 * Pace-only mode (`paceOnly` from 'sammy-pacing-dashjs/pace-only'): dash.js's own ABR rules stay
 * (DYNAMIC: BOLA, throughput, insufficient buffer, abandon). `playerAbr`: dash.js's active rules
 * as these settings stand, at the level the parameters are validated at.
 */
export type PaceOnlyMode = CorePaceOnlyMode<DashSettingsLike>;

export interface SammyOptions extends AdapterOptions<PaceOnlyMode> {
  /** Where CMCD travels. Default 'query'. */
  cmcdMode?: CmcdMode;
  /**
   * The player's buffer target, seconds (the pace counts a share of it as full); the parameters are validated at it. Default: dash.js's
   * buffer target at top quality (`streaming.buffer.bufferTimeAtTopQuality`, or …LongForm for
   * long content; the smaller of the two for the validation).
   */
  bufferTargetSeconds?: number;
}

/** `detach()` restores the dash.js settings attach changed. */
export type SammyController = AdapterController;

/** dash.js's own first pick when it knows nothing (its DEFAULT_VIDEO_BITRATE), kbps. */
export const DEFAULT_INITIAL_BITRATE_KBPS = DEFAULT_PARAMETERS.initialVideoBitrateKbps;

export function attach(player: MediaPlayerClass, options: SammyOptions = {}): SammyController {
  const kit = createAdapterKit(options, {
    package: 'sammy-pacing-dashjs',
    // The level dash.js fills to while fetching the top rung, which the pace is for; of its two
    // (long-form content or not: unknown before the load) the smaller for the validation.
    bufferTargetSeconds: () => playerBufferTargetSeconds(player),
    lowestBufferTargetSeconds: () => Math.min(playerBufferTargetSeconds(player, false), playerBufferTargetSeconds(player, true)),
    settings: () => player.getSettings(),
    cmcdMode: () => 'query',
    startKbps: () => DEFAULT_INITIAL_BITRATE_KBPS,
    // dash.js's first pick is `abr.initialBitrate`, before any rule runs.
    firstPickFromStart: true,
  });
  const { session, paceOnly } = kit;
  const settings = dashSettings(player, paceOnly);
  let start: number | undefined;
  const apply = () => settings.apply(session.enabled, (start = kit.startKbps()));
  // Each sample may move the history, and with it dash.js's first pick of the next source (rules untouched: dash.js would rebuild them).
  session.on('sample', () => {
    const next = kit.startKbps();
    if (next !== undefined && next !== start) player.updateSettings({ streaming: { abr: { initialBitrate: { video: (start = next) } } } });
  });
  const rule = createRuleFactory(player, session);
  const interceptors = createInterceptors(player, kit);
  const listeners = PLAYBACK_EVENTS.map(([name, type]) => [name, (e: object) => session.playback(playbackEvent(type, e))] as const);

  if (!paceOnly) player.addABRCustomRule('qualitySwitchRules', SAMMY_RULE_NAME, rule);
  extendLoaderAborts(player);
  player.addRequestInterceptor(interceptors.request);
  player.addResponseInterceptor(interceptors.response);
  for (const [type, listener] of listeners) player.on(type, listener);
  apply();

  return kit.controller({
    enabled: apply,
    detach() {
      if (!paceOnly) player.removeABRCustomRule(SAMMY_RULE_NAME);
      player.removeRequestInterceptor(interceptors.request);
      player.removeResponseInterceptor(interceptors.response);
      for (const [type, listener] of listeners) player.off(type, listener);
      settings.restore();
    },
  });
}

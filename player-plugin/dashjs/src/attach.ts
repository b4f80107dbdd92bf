/**
 * `attach(player)`: installs Sammy in a dash.js 5 player: Sammy's rule replaces dash.js's ABR rules
 * (pace-only mode keeps them) and each media request's CMCD `rtp` becomes its pace. Core's adapter
 * kit does what every adapter shares; this file describes dash.js to it and wires dash.js's hooks.
 */
import type { MediaPlayerClass, PlaybackTimeUpdatedEvent } from 'dashjs';
import {
  createAdapterKit,
  DEFAULT_PARAMETERS,
  type AdapterController,
  type AdapterOptions,
  type PaceOnlyMode as CorePaceOnlyMode,
  type PlaybackEvent,
} from 'sammy-pacing-core';
import type { CmcdMode } from 'sammy-pacing-protocol';
import { extendLoaderAborts } from './loader-aborts.js';
import type { DashSettingsLike } from './player.js';
import { createInterceptors } from './requests.js';
import { createRuleFactory, SAMMY_RULE_NAME } from './rule.js';
import { dashSettings } from './settings.js';
import { playerBufferTargetSeconds } from './stream.js';

/** Pace-only mode (`paceOnly` from 'sammy-pacing-dashjs/pace-only'): dash.js's own ABR rules stay; `playerAbr` reads the active ones from its settings. */
export type PaceOnlyMode = CorePaceOnlyMode<DashSettingsLike>;

export interface SammyOptions extends AdapterOptions<PaceOnlyMode> {
  /** Where CMCD travels. Default 'query'. */
  cmcdMode?: CmcdMode;
  /** The player's buffer target, seconds (the pace counts a share of it as full). Default: dash.js's `streaming.buffer.bufferTimeAtTopQuality` (…LongForm for long content; the smaller of the two for the validation). */
  bufferTargetSeconds?: number;
}

/** `detach()` restores the dash.js settings attach changed. */
export type SammyController = AdapterController;

/** dash.js's own first pick when it knows nothing (its DEFAULT_VIDEO_BITRATE), kbps. */
export const DEFAULT_INITIAL_BITRATE_KBPS = DEFAULT_PARAMETERS.initialVideoBitrateKbps;

/** dash.js's events as playback events. A stall is `waiting`: dash.js's bufferStalled can report an empty buffer for a moment while playback goes on. */
const PLAYBACK_EVENTS = {
  manifestLoaded: 'load',
  playbackPlaying: 'playing',
  playbackSeeking: 'seeking',
  playbackSeeked: 'seeked',
  playbackWaiting: 'waiting',
  playbackTimeUpdated: 'timeupdate',
} as const;

export function attach(player: MediaPlayerClass, options: SammyOptions = {}): SammyController {
  const kit = createAdapterKit(options, {
    package: 'sammy-pacing-dashjs',
    // The level dash.js fills to while fetching the top rung; the content's length (long-form or not) is unknown before the load.
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
  const interceptors = createInterceptors(player, kit);
  const playback = (type: PlaybackEvent['type']) => (e: Partial<PlaybackTimeUpdatedEvent>) =>
    session.playback(type === 'timeupdate' ? { type, mediaTimeSeconds: e.time ?? NaN } : { type });
  const listeners = Object.entries(PLAYBACK_EVENTS).map(([name, type]) => [name, playback(type)] as const);

  if (!paceOnly) player.addABRCustomRule('qualitySwitchRules', SAMMY_RULE_NAME, createRuleFactory(player, session));
  extendLoaderAborts(player);
  player.addRequestInterceptor(interceptors.request);
  player.addResponseInterceptor(interceptors.response);
  for (const [name, listener] of listeners) player.on(name, listener);
  apply();

  return kit.controller({
    enabled: apply,
    detach() {
      if (!paceOnly) player.removeABRCustomRule(SAMMY_RULE_NAME);
      player.removeRequestInterceptor(interceptors.request);
      player.removeResponseInterceptor(interceptors.response);
      for (const [name, listener] of listeners) player.off(name, listener);
      settings.restore();
    },
  });
}

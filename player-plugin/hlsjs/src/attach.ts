/**
 * `attach(hls)`: switches Sammy on for an hls.js player made with `new Hls(sammyConfig(config))`.
 * hls.js keeps doing everything it does; Sammy picks the level (pace-only mode: hls.js's own ABR
 * does), and sets `rtp` in hls.js's CMCD payload of each media request to this request's pace
 * (or removes it), never hls.js's own formula. What every adapter shares is core's adapter kit;
 * this file describes hls.js to it and wires hls.js's hooks.
 */
import { createAdapterKit, type AdapterController, type AdapterOptions, type PaceOnlyMode as CorePaceOnlyMode } from 'sammy-pacing-core';
import type { CmcdMode } from 'sammy-pacing-protocol';
import { madeWithSammyConfig } from './abr-controller.js';
import type { Hls, HlsConfig } from './hls.js';
import { hooksOf, setHooks } from './hooks.js';
import { listenToPlayback } from './playback-events.js';
import { createHooks } from './requests.js';
import { playerBufferTargetSeconds } from './stream.js';

export type { SammyMode } from 'sammy-pacing-core';

/**
 * Pace-only mode (`paceOnly` from 'sammy-pacing-hlsjs/pace-only'): hls.js's own ABR picks (its
 * estimate, level choice and abandon rule). `playerAbr`: hls.js's ABR as this config stands.
 */
export type PaceOnlyMode = CorePaceOnlyMode<HlsConfig>;

export interface SammyOptions extends AdapterOptions<PaceOnlyMode> {
  /** Where CMCD travels. Default: hls.js's own (`cmcd.useHeaders` → 'header', else 'query'). */
  cmcdMode?: CmcdMode;
  /** The player's buffer target, seconds (the pace counts a share of it as full). Default: hls.js's `maxBufferLength` (30). */
  bufferTargetSeconds?: number;
}

/** `detach()` hands the level choice back to hls.js, stops pacing and removes every listener attach added. */
export type SammyController = AdapterController;

export function attach(hls: Hls, options: SammyOptions = {}): SammyController {
  if (!madeWithSammyConfig(hls)) {
    throw new TypeError('Sammy: make the player with new Hls(sammyConfig(config))');
  }
  if (hooksOf(hls.config)) throw new Error('Sammy: already attached');
  const originalDefaultEstimate = hls.config.abrEwmaDefaultEstimate;
  const kit = createAdapterKit(options, {
    package: 'sammy-pacing-hlsjs',
    bufferTargetSeconds: () => playerBufferTargetSeconds(hls),
    settings: () => hls.config,
    cmcdMode: () => (hls.config.cmcd?.useHeaders ? 'header' : 'query'),
    // hls.js's first pick goes by its default estimate, undiscounted.
    startKbps: () => originalDefaultEstimate / 1000,
  });
  // hls.js's start from Sammy's, at each new source (else it keeps its estimate, paced samples and all, across sources).
  const applyStart = () => {
    const kbps = kit.startKbps();
    if (kbps !== undefined) hls.bandwidthEstimate = kbps * 1000;
  };
  const hooks = createHooks(hls, kit);
  setHooks(hls.config, hooks);
  const unlisten = listenToPlayback(hls, (event) => kit.session.playback(event), { loading: applyStart, abandoned: hooks.abandoned });
  // Attached before any source: the first pick already comes from the history.
  if (!hls.url) applyStart();

  const restoreStart = () => (hls.config.abrEwmaDefaultEstimate = originalDefaultEstimate);
  return kit.controller({
    enabled(on) {
      if (!on) restoreStart();
    },
    detach() {
      setHooks(hls.config, undefined);
      unlisten();
      restoreStart();
    },
  });
}

/**
 * `attach(new Hls(sammyConfig(config)))`: hls.js builds its ABR controller and fragment loader once,
 * in its constructor, so Sammy's go in the config and `attach` switches them on; core's kit does the rest.
 */
import type { default as Hls, HlsConfig } from 'hls.js';
import {
  createAdapterKit,
  positiveOr,
  type AdapterController,
  type AdapterOptions,
  type PaceOnlyMode as CorePaceOnlyMode,
} from 'sammy-pacing-core';
import { madeWithSammyConfig, sammyAbrController, type AbrControllerClass } from './abr-controller.js';
import { sammyFragmentLoader, type FragmentLoaderClass } from './loader.js';
import { listenToPlayback } from './playback-events.js';
import { createHooks, hooks } from './requests.js';

/** Pace-only mode (`paceOnly` from 'sammy-pacing-hlsjs/pace-only'): hls.js's own ABR picks. `playerAbr`: hls.js's ABR as this config stands. */
export type PaceOnlyMode = CorePaceOnlyMode<HlsConfig>;

/** hls.js's defaults: `cmcdMode` as its `cmcd.useHeaders` ('header', else 'query'), `bufferTargetSeconds` its `maxBufferLength` (30). */
export type SammyOptions = AdapterOptions<PaceOnlyMode>;

/** `detach()` hands the level choice back to hls.js, stops pacing and removes every listener attach added. */
export type SammyController = AdapterController;

/** The app's config with Sammy's `abrController` and `fLoader` around its own (or hls.js's), and CMCD on (`cmcd: {}`) unless configured. */
export function sammyConfig<T extends Partial<HlsConfig>>(config: T = {} as T): T & Partial<HlsConfig> {
  return {
    ...config,
    abrController: sammyAbrController(config.abrController as AbrControllerClass | undefined) as unknown as HlsConfig['abrController'],
    fLoader: sammyFragmentLoader(config.fLoader as FragmentLoaderClass | undefined) as unknown as HlsConfig['fLoader'],
    cmcd: config.cmcd ?? {},
  };
}

export function attach(hls: Hls, options: SammyOptions = {}): SammyController {
  if (!madeWithSammyConfig(hls)) throw new TypeError('Sammy: make the player with new Hls(sammyConfig(config))');
  if (hooks.has(hls.config)) throw new Error('Sammy: already attached');
  const originalDefaultEstimate = hls.config.abrEwmaDefaultEstimate;
  const kit = createAdapterKit(options, {
    package: 'sammy-pacing-hlsjs',
    bufferTargetSeconds: () => positiveOr(hls.config.maxBufferLength, 30),
    settings: () => hls.config,
    cmcdMode: () => (hls.config.cmcd?.useHeaders ? 'header' : 'query'),
    // hls.js's first pick goes by its default estimate, undiscounted.
    startKbps: () => originalDefaultEstimate / 1000,
  });
  // At each new source: else hls.js keeps its estimate, paced samples and all, across sources.
  const applyStart = () => {
    const kbps = kit.startKbps();
    if (kbps !== undefined) hls.bandwidthEstimate = kbps * 1000;
  };
  const sammy = createHooks(hls, kit);
  hooks.set(hls.config, sammy);
  const unlisten = listenToPlayback(hls, (event) => kit.session.playback(event), { loading: applyStart, abandoned: sammy.abandoned });
  // Attached before any source: the first pick already comes from the history.
  if (!hls.url) applyStart();
  // Setting hls.bandwidthEstimate sets the config's abrEwmaDefaultEstimate too: Sammy off or detached gives it back.
  const restoreStart = () => (hls.config.abrEwmaDefaultEstimate = originalDefaultEstimate);
  return kit.controller({
    enabled(on) {
      if (!on) restoreStart();
    },
    detach() {
      hooks.delete(hls.config);
      unlisten();
      restoreStart();
    },
  });
}

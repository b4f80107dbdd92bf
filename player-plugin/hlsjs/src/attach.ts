/**
 * `attach(hls)`: switches Sammy on for an hls.js player made with `new Hls(sammyConfig(config))`.
 * hls.js keeps doing everything it does; Sammy picks the level (pace-only mode: hls.js's own ABR
 * does), and sets `rtp` in hls.js's CMCD payload of each media request to this request's pace
 * (or removes it), never hls.js's own formula. Everything Sammy decides is in the session core
 * (sammy-pacing-core); this file only wires hls.js to it.
 */
import {
  createSession,
  paceOnlyModeOf,
  type AdapterController,
  type AdapterOptions,
  type MediaKind,
  type PaceOnlyMode as CorePaceOnlyMode,
  type PlaybackEvent,
  type SammyDecision,
  type SammyMode,
} from 'sammy-pacing-core';
import { checkCmcdMode, withoutCmcd, writeRtp, type CmcdMode } from 'sammy-pacing-protocol';
import { madeWithSammyConfig } from './abr-controller.js';
import type { FragmentLoaderContext, Hls, HlsConfig, LoaderStats } from './hls.js';
import { hooksOf, setHooks } from './hooks.js';
import { listenToMedia } from './playback-events.js';
import { autoLevelRange, mainBufferSeconds, playerMaxBufferSeconds, trackStates } from './stream.js';

export type { SammyMode } from 'sammy-pacing-core';

/**
 * Pace-only mode (`paceOnly` from 'sammy-pacing-hlsjs/pace-only'): hls.js's own ABR picks (its
 * estimate, level choice and abandon rule). `playerAbr`: hls.js's ABR as this config stands.
 */
export type PaceOnlyMode = CorePaceOnlyMode<HlsConfig>;

export interface SammyOptions extends AdapterOptions<PaceOnlyMode> {
  /** Where CMCD travels. Default: hls.js's own (`cmcd.useHeaders` → 'header', else 'query'). */
  cmcdMode?: CmcdMode;
  /** Buffer level counted as full, seconds. Default: hls.js's `maxBufferLength` (30). */
  maxBufferSeconds?: number;
}

/** `detach()` hands the level choice back to hls.js, stops pacing and removes every listener attach added. */
export type SammyController = AdapterController;

/** The emitter side of hls.js, with event names as strings (the adapter imports no hls.js enum). */
interface EventsLike {
  on(event: string, listener: (event: string, data: never) => void): void;
  off(event: string, listener: (event: string, data: never) => void): void;
}

function mediaKindOf(frag: FragmentLoaderContext['frag']): MediaKind | undefined {
  if (frag.sn === 'initSegment') return undefined;
  return frag.type === 'main' ? 'video' : frag.type === 'audio' ? 'audio' : undefined;
}

export function attach(hls: Hls, options: SammyOptions = {}): SammyController {
  if (!madeWithSammyConfig(hls)) {
    throw new TypeError('Sammy: make the player with new Hls(sammyConfig(config))');
  }
  if (hooksOf(hls.config)) throw new Error('Sammy: already attached');
  const { mode: requestedMode, enabled, cmcdMode: requestedCmcdMode, maxBufferSeconds, initialHistory, ...parameters } = options;
  const paceOnlyMode = paceOnlyModeOf<PaceOnlyMode>(requestedMode, 'sammy-pacing-hlsjs/pace-only');
  const paceOnly = paceOnlyMode !== undefined;
  const mode: SammyMode = paceOnly ? 'pace-only' : 'sammy';
  const maxBuffer = () => maxBufferSeconds ?? playerMaxBufferSeconds(hls);
  // Pace-only: hls.js's ABR as its config stands now, so a pace that would starve it is refused here.
  const playerAbr = () => paceOnlyMode?.playerAbr(hls.config, maxBuffer());
  const originalDefaultEstimate = hls.config.abrEwmaDefaultEstimate;
  const session = createSession({
    // With no estimate at all, start where hls.js itself would: its default estimate.
    parameters: { initialVideoBitrateKbps: originalDefaultEstimate / 1000, ...parameters },
    enabled,
    history: initialHistory,
    playerAbr: playerAbr(),
    // Validated at the level each request counts full (below it the session paces nothing as full).
    maxBufferSeconds: maxBuffer(),
  });
  let cmcdMode = checkCmcdMode(requestedCmcdMode ?? (hls.config.cmcd?.useHeaders ? 'header' : 'query'));
  const events = hls as unknown as EventsLike;

  // Pace-only: hls.js's first pick from the initial-phase history (its default estimate, which it
  // otherwise keeps, paced samples and all, across sources).
  const applyStartEstimate = () => {
    if (paceOnly && session.enabled && session.hasHistory) hls.bandwidthEstimate = session.startBitrateKbps() * 1000;
  };

  // The decision of each media fragment in flight, by hls.js's own fragment object.
  const inFlight = new WeakMap<object, SammyDecision>();
  const sample = (key: object, download: { bytes: number; durationMs: number }) => {
    const decision = inFlight.get(key);
    if (!decision) return;
    inFlight.delete(key);
    session.addSample(decision, download);
  };

  setHooks(hls.config, {
    chooseLevel() {
      if (paceOnly || !session.enabled) return undefined;
      const levels = hls.levels;
      if (levels.length === 0) return undefined;
      const { min, max } = autoLevelRange(hls);
      const ladderKbps: number[] = [];
      for (let i = min; i <= max; i++) ladderKbps.push(levels[i]!.bitrate / 1000);
      const choice = session.chooseBitrate({ mediaType: 'video', ladderKbps, bufferLevelSeconds: mainBufferSeconds(hls) });
      if (!choice) return undefined;
      let level = min;
      for (let i = min; i <= max; i++) if (levels[i]!.bitrate / 1000 <= choice.bitrateKbps) level = i;
      return level;
    },
    request(context) {
      try {
        const { frag } = context;
        const mediaType = mediaKindOf(frag);
        const bitrate = mediaType === 'video' ? hls.levels[frag.level]?.bitrate : hls.allAudioTracks[frag.level]?.bitrate;
        const decision = mediaType
          ? session.decide({
              mediaType,
              bitrateKbps: (bitrate ?? 0) / 1000,
              url: withoutCmcd(context.url),
              tracks: trackStates(hls, mediaType),
              maxBufferSeconds: maxBuffer(),
            })
          : undefined;
        // Every fragment, init segments included: hls.js's own rtp goes, Sammy's (if any) comes.
        const written = writeRtp({ url: context.url, headers: context.headers ?? {} }, decision?.paceRateKbps, cmcdMode);
        context.url = written.url;
        context.headers = written.headers;
        if (!decision) return undefined;
        const key = context.part ?? frag;
        inFlight.set(key, decision);
        return (stats: LoaderStats) => sample(key, { bytes: stats.loaded, durationMs: stats.loading.end - stats.loading.start });
      } catch (error) {
        // Never hold a fragment back: an unpaced request beats a failed one.
        console.error('Sammy: fragment request failed', error);
        return undefined;
      }
    },
  });

  const feed = (event: PlaybackEvent) => session.playback(event);
  let unlisten = hls.media ? listenToMedia(hls.media, feed) : undefined;
  const onMediaAttached = (_: string, data: { media: HTMLMediaElement }) => {
    unlisten?.();
    unlisten = listenToMedia(data.media, feed);
  };
  const onMediaDetaching = () => {
    unlisten?.();
    unlisten = undefined;
  };
  const onManifestLoading = () => {
    session.playback({ type: 'load' });
    applyStartEstimate();
  };
  // hls.js's abandon rule gave up on a fragment: what it loaded until then is a sample too.
  const onEmergencyAbort = (_: string, data: { frag: object; part: object | null; stats: LoaderStats }) =>
    sample(data.part ?? data.frag, { bytes: data.stats.loaded, durationMs: performance.now() - data.stats.loading.start });
  // hls.js 1.x event names (src/events.ts: MEDIA_ATTACHED, MEDIA_DETACHING, MANIFEST_LOADING,
  // FRAG_LOAD_EMERGENCY_ABORTED), as strings: the adapter has no runtime import of hls.js.
  const listeners: Array<[string, (event: string, data: never) => void]> = [
    ['hlsMediaAttached', onMediaAttached],
    ['hlsMediaDetaching', onMediaDetaching],
    ['hlsManifestLoading', onManifestLoading],
    ['hlsFragLoadEmergencyAborted', onEmergencyAbort],
  ];
  for (const [event, listener] of listeners) events.on(event, listener);
  // Attached before any source: the first pick already comes from the history.
  if (!hls.url) applyStartEstimate();

  let attached = true;
  return {
    get enabled() {
      return session.enabled;
    },
    setEnabled(on: boolean) {
      session.setEnabled(on);
      if (!on) hls.config.abrEwmaDefaultEstimate = originalDefaultEstimate;
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
      setHooks(hls.config, undefined);
      for (const [event, listener] of listeners) events.off(event, listener);
      unlisten?.();
      hls.config.abrEwmaDefaultEstimate = originalDefaultEstimate;
      session.destroy();
    },
  };
}

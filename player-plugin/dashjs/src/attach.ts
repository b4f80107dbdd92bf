/**
 * `attach(player)`: installs Sammy in a dash.js 5 player. dash.js keeps doing everything it
 * does; Sammy replaces its ABR rules with one rule, and rewrites each media request's CMCD so
 * that `rtp` is this request's pace rate (or absent), never dash.js's own formula.
 */
import type { MediaPlayerClass } from 'dashjs';
import {
  appendBounded,
  chunkThroughputKbps,
  decideBitrate,
  decidePace,
  Emitter,
  harmonicMeanKbps,
  InitialThroughputHistory,
  nextPhase,
  resolveParameters,
  type CmcdMode,
  type InitialThroughputStore,
  type MediaKind,
  type Phase,
  type PlaybackEvent,
  type SammyDecision,
  type SammyParameters,
  type SegmentSample,
} from 'sammy-pacing-core';
import { urlWithoutCmcd, writeRtp } from './cmcd.js';
import {
  DASH_BUILT_IN_RULES,
  DASH_EVENTS,
  MEDIA_SEGMENT_TYPE,
  type CommonMediaRequestLike,
  type CommonMediaResponseLike,
  type FragmentRequestLike,
  type PlayerEventLike,
  type PlayerLike,
} from './player.js';
import { createRuleFactory, isMediaKind, SAMMY_RULE_NAME } from './rule.js';

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

export interface SammyEvents extends Record<string, unknown> {
  decision: SammyDecision;
  sample: SegmentSample;
  phase: Phase;
}

export interface SammyController {
  readonly enabled: boolean;
  /** On: Sammy's rule and pace. Off: dash.js's own ABR rules, no `rtp`. Applies from the next request. */
  setEnabled(on: boolean): void;
  readonly parameters: Readonly<SammyParameters>;
  /** Changes c0, c1, β, look-ahead or overhead live; throws SammyConfigError and keeps the old set if invalid. */
  update(changes: Partial<SammyParameters>): void;
  readonly cmcdMode: CmcdMode;
  setCmcdMode(mode: CmcdMode): void;
  readonly phase: Phase;
  on<K extends keyof SammyEvents>(event: K, listener: (payload: SammyEvents[K]) => void): () => void;
  /** Removes everything attach installed and restores the settings it changed. */
  detach(): void;
}

/** dash.js's own first pick when it knows nothing (its DEFAULT_VIDEO_BITRATE), kbps. */
export const DEFAULT_INITIAL_BITRATE_KBPS = 1000;
/** Session samples kept for the playing-phase estimate. */
const SESSION_SAMPLE_LIMIT = 20;

interface InFlight {
  mediaType: MediaKind;
  url: string;
  phase: Phase;
  paceRateKbps: number | undefined;
  bitrateKbps: number;
  sentAt: number;
}

function checkCmcdMode(mode: unknown): CmcdMode {
  if (mode !== 'query' && mode !== 'header') throw new TypeError(`Sammy: cmcdMode must be 'query' or 'header', got ${String(mode)}`);
  return mode;
}

function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}

export function attach(mediaPlayer: MediaPlayerClass, options: SammyOptions = {}): SammyController {
  const player = mediaPlayer as unknown as PlayerLike;
  let parameters = resolveParameters(options);
  let enabled = options.enabled ?? true;
  let cmcdMode: CmcdMode = checkCmcdMode(options.cmcdMode ?? 'query');
  let phase: Phase = 'initial';
  // Per media type: small audio segments measure mostly latency and would drag a shared estimate down.
  let sessionSamplesKbps: Record<MediaKind, number[]> = { video: [], audio: [] };
  const history = new InitialThroughputHistory(options.initialHistory);
  const events = new Emitter<SammyEvents>();
  const inFlight = new WeakMap<object, InFlight>();

  // What attach changes, to give back on detach.
  const settings = player.getSettings().streaming ?? {};
  const originalRules = Object.fromEntries(DASH_BUILT_IN_RULES.map((rule) => [rule, settings.abr?.rules?.[rule]?.active ?? false]));
  const originalInitialVideoBitrate = settings.abr?.initialBitrate?.video ?? -1;
  const originalCmcd = { ...settings.cmcd, enabledKeys: [...(settings.cmcd?.enabledKeys ?? [])] };

  function bufferLevel(type: string): number {
    try {
      return Math.max(0, finiteOr(player.getBufferLength(type), 0));
    } catch {
      return 0;
    }
  }

  function topBitrateKbps(type: MediaKind): number {
    try {
      const reps = player.getRepresentationsByType(type) ?? [];
      return reps.reduce((max, r) => Math.max(max, r.bitrateInKbit ?? (r.bandwidth ?? 0) / 1000), 0);
    } catch {
      return 0;
    }
  }

  /** The ladder tops, read from dash.js once per request. */
  function ladderTops(): Record<MediaKind, number> {
    return { video: topBitrateKbps('video'), audio: topBitrateKbps('audio') };
  }

  /** The buffer that stalls first: the pace is shared by audio and video, so it follows the lower one. */
  function sessionBufferLevel(tops: Record<MediaKind, number>): number {
    const levels = (['video', 'audio'] as const).filter((t) => tops[t] > 0).map(bufferLevel);
    return levels.length > 0 ? Math.min(...levels) : bufferLevel('video');
  }

  function maxBufferSeconds(): number {
    if (options.maxBufferSeconds !== undefined) return options.maxBufferSeconds;
    const buffer = player.getSettings().streaming?.buffer ?? {};
    const longForm = finiteOr(player.duration(), 0) > (buffer.longFormContentDurationThreshold ?? 600);
    return (longForm ? buffer.bufferTimeAtTopQualityLongForm : buffer.bufferTimeAtTopQuality) ?? 30;
  }

  function throughputEstimate(mediaType: MediaKind): number | undefined {
    return phase === 'initial' ? history.estimateKbps() : harmonicMeanKbps(sessionSamplesKbps[mediaType]);
  }

  /**
   * The pace every media request carries: multiplier × (top video + top audio). Audio and video
   * requests carry the same value, so on an HTTP/2 or HTTP/3 connection, where the server's
   * pace holds for the whole connection, an audio request can never throttle a video download.
   */
  function currentPace(tops: Record<MediaKind, number>): number | undefined {
    if (!enabled) return undefined;
    return decidePace({
      phase,
      bufferLevelSeconds: sessionBufferLevel(tops),
      maxBufferSeconds: maxBufferSeconds(),
      topBitrateKbps: tops.video + tops.audio,
      parameters,
    });
  }

  const rule = createRuleFactory((mediaType, ladderKbps) => {
    if (!enabled) return undefined;
    const decision = decideBitrate({
      phase,
      bitratesKbps: ladderKbps,
      bufferLevelSeconds: bufferLevel(mediaType),
      sessionThroughputKbps: harmonicMeanKbps(sessionSamplesKbps[mediaType]),
      initialThroughputKbps: history.estimateKbps(),
      parameters,
    });
    const x = decision.throughputKbps === undefined ? 'none' : `${Math.round(decision.throughputKbps)} kbps`;
    return { bitrateKbps: decision.bitrateKbps, reason: `[Sammy] ${phase} phase, estimate ${x}` };
  });

  /** dash.js's first pick of a session comes from this setting: feed it initial-phase history only. */
  function initialBitrateSetting(): number {
    const estimate = history.estimateKbps();
    return estimate === undefined ? DEFAULT_INITIAL_BITRATE_KBPS : Math.max(1, Math.floor(parameters.beta * estimate));
  }

  function applySettings(): void {
    const enabledKeys = originalCmcd.enabledKeys.filter((k) => k !== 'rtp');
    player.updateSettings({
      streaming: {
        abr: {
          rules: Object.fromEntries(DASH_BUILT_IN_RULES.map((r) => [r, { active: enabled ? false : originalRules[r] }])),
          initialBitrate: { video: enabled ? initialBitrateSetting() : originalInitialVideoBitrate },
        },
        // dash.js computes an `rtp` of its own (a 5× buffer-scaled guess that spirals down with a
        // throughput rule); drop the key so only Sammy's pace travels. dash.js writes the query
        // form; in header mode Sammy's interceptor moves the payload into headers (see cmcd.ts).
        cmcd: { enabled: true, mode: 'query', ...(enabledKeys.length > 0 ? { enabledKeys } : {}) },
      },
    });
  }

  const requestInterceptor = async (request: CommonMediaRequestLike): Promise<CommonMediaRequestLike> => {
    try {
      const fragment: FragmentRequestLike | undefined = request.customData?.request;
      const mediaType = fragment?.mediaType;
      const isMedia = fragment?.type === MEDIA_SEGMENT_TYPE && isMediaKind(mediaType);
      // Manifest, init and other requests never carry rtp; media requests carry this request's pace.
      const tops = isMedia ? ladderTops() : undefined;
      const rtp = tops ? currentPace(tops) : undefined;
      const written = writeRtp({ url: request.url, headers: request.headers ?? {} }, rtp, cmcdMode);
      request.url = written.url;
      request.headers = written.headers;
      if (isMedia && fragment) {
        const bitrateKbps = fragment.representation?.bitrateInKbit ?? (fragment.bandwidth ?? 0) / 1000;
        const url = urlWithoutCmcd(request.url);
        const time = Date.now();
        inFlight.set(fragment, { mediaType, url, phase, paceRateKbps: rtp, bitrateKbps, sentAt: time });
        events.emit('decision', {
          time,
          mediaType,
          phase,
          enabled,
          bufferLevelSeconds: bufferLevel(mediaType),
          throughputKbps: throughputEstimate(mediaType),
          bitrateKbps,
          topBitrateKbps: tops?.video ?? 0,
          paceRateKbps: rtp,
          url,
        });
      }
    } catch (error) {
      // Never hold a segment back: an unpaced request beats a failed one.
      console.error('Sammy: request interceptor failed', error);
    }
    return request;
  };

  const responseInterceptor = async (response: CommonMediaResponseLike): Promise<CommonMediaResponseLike> => {
    const fragment = response.request?.customData?.request;
    const sent = fragment ? inFlight.get(fragment) : undefined;
    if (!fragment || !sent) return response;
    inFlight.delete(fragment);
    const status = response.status ?? 0;
    const bytes = response.data instanceof ArrayBuffer ? response.data.byteLength : (response.resourceTiming?.encodedBodySize ?? 0);
    if (status < 200 || status > 299 || bytes <= 0) return response;
    // Duration from dash.js's own timing of the load (both ends on one clock, whichever it uses).
    const timing = response.resourceTiming;
    const durationMs = Math.max(1, timing?.responseEnd !== undefined && timing.startTime !== undefined ? timing.responseEnd - timing.startTime : Date.now() - sent.sentAt);
    const throughputKbps = chunkThroughputKbps({ bytes, durationMs });
    sessionSamplesKbps[sent.mediaType] = appendBounded(sessionSamplesKbps[sent.mediaType], throughputKbps, SESSION_SAMPLE_LIMIT);
    // The history keeps video only: it is what the first picks of the next session need.
    if (sent.phase === 'initial' && sent.paceRateKbps === undefined && sent.mediaType === 'video') {
      history.add(throughputKbps);
      // Only the initial-bitrate setting: touching the rule settings makes dash.js rebuild its rule list.
      if (enabled) player.updateSettings({ streaming: { abr: { initialBitrate: { video: initialBitrateSetting() } } } });
    }
    events.emit('sample', { time: Date.now(), mediaType: sent.mediaType, url: sent.url, bytes, durationMs, throughputKbps, phase: sent.phase, paceRateKbps: sent.paceRateKbps, bitrateKbps: sent.bitrateKbps });
    return response;
  };

  function onPlaybackEvent(event: PlaybackEvent) {
    const next = nextPhase(phase, event);
    if (next !== phase) {
      phase = next;
      events.emit('phase', phase);
    }
  }
  // Phases follow the media element, through dash.js's events: a stall is the element's
  // `waiting` (dash.js can report an empty buffer for a moment while playback goes on), and
  // playback has resumed when `playing` fires or, after a seek within the buffer where no
  // `playing` comes, when the media time moves forward again.
  let seeking = false;
  let lastMediaTime = NaN;
  const onManifestLoaded = () => {
    sessionSamplesKbps = { video: [], audio: [] };
    seeking = false;
    lastMediaTime = NaN;
    onPlaybackEvent('load');
  };
  const onPlaying = () => onPlaybackEvent('playing');
  const onSeeking = () => {
    seeking = true;
    onPlaybackEvent('seeking');
  };
  const onSeeked = () => {
    seeking = false;
    lastMediaTime = NaN;
  };
  const onWaiting = () => onPlaybackEvent('stalled');
  const onTimeUpdated = (e: PlayerEventLike) => {
    const time = e.time ?? NaN;
    if (phase === 'initial' && !seeking && time > lastMediaTime) onPlaybackEvent('playing');
    lastMediaTime = time;
  };
  const listeners: Array<[string, (e: PlayerEventLike) => void]> = [
    [DASH_EVENTS.manifestLoaded, onManifestLoaded],
    [DASH_EVENTS.playbackPlaying, onPlaying],
    [DASH_EVENTS.playbackSeeking, onSeeking],
    [DASH_EVENTS.playbackSeeked, onSeeked],
    [DASH_EVENTS.playbackWaiting, onWaiting],
    [DASH_EVENTS.playbackTimeUpdated, onTimeUpdated],
  ];

  player.addABRCustomRule('qualitySwitchRules', SAMMY_RULE_NAME, rule);
  player.addRequestInterceptor(requestInterceptor);
  player.addResponseInterceptor(responseInterceptor);
  for (const [type, listener] of listeners) player.on(type, listener);
  applySettings();

  let attached = true;
  return {
    get enabled() {
      return enabled;
    },
    setEnabled(on: boolean) {
      if (on === enabled) return;
      enabled = on;
      applySettings();
    },
    get parameters() {
      return parameters;
    },
    update(changes: Partial<SammyParameters>) {
      parameters = resolveParameters(changes, parameters);
    },
    get cmcdMode() {
      return cmcdMode;
    },
    setCmcdMode(mode: CmcdMode) {
      cmcdMode = checkCmcdMode(mode);
    },
    get phase() {
      return phase;
    },
    on: (event, listener) => events.on(event, listener),
    detach() {
      if (!attached) return;
      attached = false;
      player.removeABRCustomRule(SAMMY_RULE_NAME);
      player.removeRequestInterceptor(requestInterceptor);
      player.removeResponseInterceptor(responseInterceptor);
      for (const [type, listener] of listeners) player.off(type, listener);
      player.updateSettings({
        streaming: {
          abr: {
            rules: Object.fromEntries(DASH_BUILT_IN_RULES.map((r) => [r, { active: originalRules[r] }])),
            initialBitrate: { video: originalInitialVideoBitrate },
          },
          cmcd: originalCmcd,
        },
      });
      events.clear();
    },
  };
}

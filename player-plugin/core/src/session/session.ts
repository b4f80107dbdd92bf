/**
 * One playback session of Sammy, independent of any player: it owns the phase, this session's
 * throughput estimates, the initial-phase history and the parameters, and makes one decision
 * per media request. An adapter only translates: player events → `playback`, its ABR hook →
 * `chooseBitrate`, each outgoing media request → `decide` (then writes `paceRateKbps` as CMCD
 * `rtp`), each finished download → `addSample`.
 */
import { DEFAULT_BUFFER_TARGET_SECONDS, DEFAULT_PARAMETERS, type SammyParameters } from '../config.js';
import { createEmitter } from '../emitter.js';
import { initialThroughputHistory, type InitialThroughputStore } from '../initial-history.js';
import { decideBitrate, schedulePaceKbps, type BitrateChoice } from '../policy/decide.js';
import { paceRungKbps } from '../policy/pace-rate.js';
import { INITIAL_PROBE_STATE, nextProbeState, paceRequest, probeEstimateKbps, type ProbeState } from '../policy/probe.js';
import type { PlayerAbr } from '../policy/pace-requirements.js';
import { fullBufferSeconds, resolveParameters } from '../policy/parameters.js';
import { withOptions } from '../options.js';
import { INITIAL_PLAYBACK_STATE, nextPlaybackState, type PlaybackEvent, type PlaybackState } from '../policy/phase.js';
import { appendBounded, harmonicMeanKbps } from '../policy/throughput.js';
import type { MediaKind, Phase } from '../policy/types.js';
import type { SammyDecision, SammyEvents, SegmentRequest, SegmentSample } from './types.js';

export interface SessionConfig {
  /** Overrides of the defaults (config.ts); validated, SammyConfigError if they could spiral. */
  parameters?: Partial<SammyParameters>;
  /** Start with Sammy on. Default true. */
  enabled?: boolean;
  /** Where initial-phase throughput persists. Default: localStorage, or memory. */
  initialHistory?: InitialThroughputStore;
  /** Clock for event times, ms since the epoch. Default Date.now. */
  now?: () => number;
  /**
   * Pace-only mode: the player's own ABR picks every bitrate (`chooseBitrate` defers to it) and
   * the pace must serve that ABR's rules, which replace Sammy's own rule in the validation.
   * Its parameters start from the defaults with the pace design it names (`playerAbr.pace`: the
   * adapters' pace-only entries pass the paper's, `PRESETS.paper`, tested): the defaults' lower
   * pace (`PRESETS.bufferAware`) relies on Sammy's own rule (its look-ahead and hysteresis).
   */
  playerAbr?: PlayerAbr;
  /**
   * The player's buffer target, seconds, at its lowest as the adapter knows it: the validation
   * checks the pace under it, and a request's own `bufferTargetSeconds` below it is raised to it. Default: the pace-only
   * player's `bufferTargetSeconds`, else DEFAULT_BUFFER_TARGET_SECONDS (10 s).
   */
  bufferTargetSeconds?: number;
}

/** What every adapter's controller offers (each adds its own, such as `detach`). */
export interface SammyControl {
  readonly enabled: boolean;
  /** On: Sammy's bitrate choice and pace. Off: the player's own ABR, no `rtp`. Applies from the next request. */
  setEnabled(on: boolean): void;
  readonly parameters: Readonly<SammyParameters>;
  /** Changes any tunable live; throws SammyConfigError and keeps the old set if invalid. */
  update(changes: Partial<SammyParameters>): void;
  readonly phase: Phase;
  on<K extends keyof SammyEvents>(event: K, listener: (payload: SammyEvents[K]) => void): () => void;
}

/** One session (`createSession`): what every adapter's controller offers, and what the adapter feeds it. */
export type SammySession = ReturnType<typeof openSession>;

/**
 * SessionConfig's keys, each with a value of its type: their one list, held to the interface by the
 * compiler (`parameters`' own keys and types are resolveParameters' to check).
 */
const SESSION_CONFIG = {
  parameters: {},
  enabled: true,
  initialHistory: {} as InitialThroughputStore,
  now: () => 0,
  playerAbr: {} as PlayerAbr,
  bufferTargetSeconds: 0,
} satisfies Required<SessionConfig>;

/**
 * A session, its config checked as every entry's options are (an unknown key or a value of the
 * wrong type is a TypeError). The kit opens its sessions with `openSession`: attach() checked
 * those options already, and the list stays out of the players' bundles.
 */
export function createSession(config: SessionConfig = {}): SammySession {
  withOptions(config, SESSION_CONFIG);
  return openSession(config);
}

// Closures rather than a class: the state's names then shrink in a minified bundle.
export function openSession(config: SessionConfig) {
  /** Pace-only mode: the player's ABR as last read (`update`). */
  let lastPlayerAbr = config.playerAbr;
  // (Infinity: the pace never counts the buffer full, c0 at every level — safe, and so validated.)
  const full = config.bufferTargetSeconds || lastPlayerAbr?.bufferTargetSeconds;
  /** The full-buffer level the parameters were validated at, seconds. */
  const lowestTargetSeconds = full! > 0 ? full! : DEFAULT_BUFFER_TARGET_SECONDS;
  const base = lastPlayerAbr ? { ...DEFAULT_PARAMETERS, ...lastPlayerAbr.pace } : DEFAULT_PARAMETERS;
  let params = resolveParameters(config.parameters, base, lastPlayerAbr, lowestTargetSeconds);
  let active = config.enabled ?? true;
  let playbackState: PlaybackState = { ...INITIAL_PLAYBACK_STATE };
  /**
   * This session's chunk throughputs, kbps, one window per media type: small audio segments
   * measure mostly latency and would drag a shared estimate down.
   */
  let samples: Record<MediaKind, number[]> = { video: [], audio: [] };
  const initialHistory = initialThroughputHistory(config.initialHistory, params.historyLimit);
  const events = createEmitter<SammyEvents>();
  /** The latest bitrate choice per media type: a request at that bitrate reports its inputs. */
  let choices: Partial<Record<MediaKind, BitrateChoice>> = {};
  const now = config.now ?? Date.now;
  /** The video ladder the bitrate rule last saw, and the bitrate of the last video request. */
  let videoLadder: readonly number[] | undefined;
  let videoFetched: number | undefined;
  /** Media seconds per segment, per media type, from the last download (bytes over the rung's bitrate). */
  let segmentSeconds: Partial<Record<MediaKind, number>> = {};
  /** Probes, holds and refetches (`probeInterval`): policy/probe.ts. */
  let probe: ProbeState = INITIAL_PROBE_STATE;
  const phase = () => playbackState.phase;

  /** The estimate a bitrate choice would use now, kbps: initial-phase history, or this session's samples. */
  const estimateKbps = (mediaType: MediaKind): number | undefined => {
    const window = params.throughputWindow;
    return phase() === 'initial' ? initialHistory.estimateKbps(window) : harmonicMeanKbps(samples[mediaType], window);
  };

  const session = {
    get enabled(): boolean {
      return active;
    },

    setEnabled(on: boolean): void {
      active = on;
    },

    get parameters(): Readonly<SammyParameters> {
      return params;
    },

    /**
     * Changes tunables live; in pace-only mode `lastPlayerAbr` also replaces the player's rules as
     * last read (its settings may have changed). Throws SammyConfigError and keeps both if invalid.
     * (A session's mode is fixed: leaving out `lastPlayerAbr` keeps the current one.)
     */
    update(changes: Partial<SammyParameters>, playerAbr: PlayerAbr | undefined = lastPlayerAbr): void {
      params = resolveParameters(changes, params, playerAbr, lowestTargetSeconds);
      lastPlayerAbr = playerAbr;
    },

    get phase(): Phase {
      return phase();
    },

    on: events.on,

    /** Feeds a playback event; a new source (`load`) also starts this session's estimates afresh. */
    playback(event: PlaybackEvent): void {
      if (event.type === 'load') {
        samples = { video: [], audio: [] };
        choices = {};
        segmentSeconds = {};
        videoFetched = undefined;
        probe = INITIAL_PROBE_STATE;
      }
      const before = playbackState.phase;
      playbackState = nextPlaybackState(playbackState, event);
      if (playbackState.phase !== before) events.emit('phase', playbackState.phase);
    },

    /** The estimate a bitrate choice would use now, kbps: initial-phase history, or this session's samples. */
    estimateKbps,

    /**
     * The video bitrate a player should start from before any rule runs (dash.js's
     * `abr.initialBitrate`): what Eq. 1 allows at an empty buffer from the history (in pace-only
     * mode, what the player's own safety factor allows), else the player's own start.
     */
    startBitrateKbps(): number {
      const estimate = initialHistory.estimateKbps(params.throughputWindow);
      const safety = lastPlayerAbr?.safetyFactor ?? params.beta;
      return estimate === undefined ? params.initialVideoBitrateKbps : Math.max(1, Math.floor(safety * estimate));
    },

    /** Whether the initial-phase history holds any sample (a start bitrate of its own). */
    get hasHistory(): boolean {
      return initialHistory.size > 0;
    },

    /** Sammy's bitrate for the next segment of a media type; undefined when off or pace-only (the player's ABR decides). */
    chooseBitrate(input: {
      mediaType: MediaKind;
      ladderKbps: readonly number[];
      bufferLevelSeconds: number;
      /** The buffer level, seconds, from which a step up makes the player refetch its buffer (dash.js's fast switching: 1.5 s without a declared segment duration); undefined: never. */
      stepUpRefetchSeconds?: number;
    }): BitrateChoice | undefined {
      if (!active || lastPlayerAbr) return undefined;
      const { mediaType } = input;
      const video = mediaType === 'video';
      if (video) videoLadder = input.ladderKbps;
      const before = choices[mediaType]?.bitrateKbps;
      const choice = decideBitrate({
        phase: phase(),
        mediaType,
        bitratesKbps: input.ladderKbps,
        bufferLevelSeconds: Math.max(0, input.bufferLevelSeconds),
        // (In the initial phase the choice goes by the history, whatever this is.)
        sessionEstimateKbps: estimateKbps(mediaType),
        initialEstimateKbps: initialHistory.estimateKbps(params.throughputWindow),
        linkThroughputKbps: video ? probe.linkKbps : undefined,
        stepUpEstimateKbps: video ? probeEstimateKbps(probe, params) : undefined,
        currentBitrateKbps: before,
        segmentSeconds: segmentSeconds[mediaType],
        stepUpRefetchSeconds: input.stepUpRefetchSeconds,
        parameters: params,
      });
      if (video && choice.bitrateKbps !== before) {
        // A step up from the buffer level where the player refetches: it fetches its whole buffer again.
        const refetch = choice.bitrateKbps > before! && choice.bufferLevelSeconds >= input.stepUpRefetchSeconds!;
        probe = nextProbeState(
          probe,
          { type: 'switch', refetchSeconds: refetch ? choice.bufferLevelSeconds : undefined, segmentSeconds: segmentSeconds.video },
          params,
        );
      }
      choices[mediaType] = choice;
      return choice;
    },

    /**
     * The decision for a media request leaving now: its pace (`rtp`), and the buffer and estimate
     * behind its bitrate — those of the choice that picked it, or (a pick the player made itself,
     * e.g. from `startBitrateKbps`) the ones a choice would use now. Emitted as 'decision'.
     */
    decide(request: SegmentRequest): SammyDecision {
      const { mediaType, tracks } = request;
      const own = Math.max(0, tracks[mediaType]?.bufferLevelSeconds ?? 0);
      const present = Object.values(tracks).filter((t) => t.ladderTopKbps > 0);
      // The pace is shared by audio and video (one connection on HTTP/2 and HTTP/3), so it follows
      // the buffer that stalls first.
      const paceBufferLevelSeconds = present.length > 0 ? Math.max(0, Math.min(...present.map((t) => t.bufferLevelSeconds))) : own;
      if (mediaType === 'video') videoFetched = request.bitrateKbps;
      // The video rung the pace is based on (the top, or with 'next-rung' the rung fetched or the
      // next one up: an audio request goes by the last video request), plus the top audio bitrate.
      const video = tracks.video;
      const rung =
        video && video.ladderTopKbps > 0
          ? paceRungKbps(params.paceBase, video.ladderTopKbps, videoFetched, video.ladderKbps ?? videoLadder)
          : undefined;
      const paceBaseKbps = (rung?.kbps ?? 0) + (tracks.audio?.ladderTopKbps || 0);
      const bufferTargetSeconds = Math.max(request.bufferTargetSeconds, lowestTargetSeconds);
      const paceFullSeconds = fullBufferSeconds(bufferTargetSeconds, params);
      const choice = choices[mediaType];
      const fromChoice = choice !== undefined && choice.phase === phase() && choice.bitrateKbps === request.bitrateKbps;
      // The schedule's pace, computed once; probe.ts holds it below or lifts a refetch.
      const scheduleKbps = active
        ? schedulePaceKbps(phase(), {
            ...params,
            bufferLevelSeconds: paceBufferLevelSeconds,
            fullBufferSeconds: paceFullSeconds,
            paceBaseKbps,
            belowTop: rung?.belowTop,
          })
        : undefined;
      const paced = paceRequest(
        probe,
        {
          video: mediaType === 'video',
          scheduleKbps,
          rung,
          bufferLevelSeconds: paceBufferLevelSeconds,
          fullBufferSeconds: paceFullSeconds,
          fetchedBaseKbps: videoFetched === undefined ? undefined : videoFetched + (tracks.audio?.ladderTopKbps || 0),
          paceBaseKbps,
        },
        params,
      );
      probe = paced.state;
      const { paceRateKbps: pace, held } = paced;
      const decision: SammyDecision = {
        time: now(),
        mediaType,
        phase: phase(),
        enabled: active,
        bitrateKbps: request.bitrateKbps,
        bufferLevelSeconds: fromChoice ? choice.bufferLevelSeconds : own,
        estimateKbps: fromChoice ? choice.estimateKbps : estimateKbps(mediaType),
        topVideoBitrateKbps: video?.ladderTopKbps ?? 0,
        paceBaseKbps,
        paceBufferLevelSeconds,
        bufferTargetSeconds,
        paceRateKbps: pace,
        held,
        url: request.url,
      };
      events.emit('decision', decision);
      return decision;
    },

    /**
     * A finished download of a decided request. Every sample feeds this session's estimate of its
     * media type; only unpaced initial-phase video samples feed the history (the first picks of
     * later sessions must not be dragged down by paced ones). Emitted as 'sample'; undefined (and
     * ignored) when it measured nothing.
     */
    addSample(decision: SammyDecision, download: { bytes: number; durationMs: number }): SegmentSample | undefined {
      if (!(download.bytes > 0 && download.bytes < Infinity && download.durationMs >= 0)) return undefined;
      const { mediaType } = decision;
      const durationMs = Math.max(1, download.durationMs);
      const bits = download.bytes * 8;
      // Chunk throughput, kbps (bits per ms).
      const throughputKbps = bits / durationMs;
      samples[mediaType] = appendBounded(samples[mediaType], throughputKbps, params.sessionSampleLimit);
      // A segment's media duration from its size and its rung's bitrate (what a refetch costs: bitrate.ts).
      if (decision.bitrateKbps > 0) segmentSeconds[mediaType] = bits / 1000 / decision.bitrateKbps;
      if (mediaType === 'video') {
        probe = nextProbeState(probe, { type: 'sample', held: decision.held, throughputKbps, paceRateKbps: decision.paceRateKbps }, params);
        if (decision.phase === 'initial' && decision.paceRateKbps === undefined) initialHistory.add(throughputKbps, params.historyLimit);
      }
      const sample: SegmentSample = {
        time: now(),
        mediaType,
        url: decision.url,
        bytes: download.bytes,
        durationMs,
        throughputKbps,
        phase: decision.phase,
        paceRateKbps: decision.paceRateKbps,
        bitrateKbps: decision.bitrateKbps,
      };
      events.emit('sample', sample);
      return sample;
    },

    /** Removes every listener. */
    destroy(): void {
      events.clear();
    },
  };
  return session satisfies SammyControl;
}

/**
 * The adapter kit: everything a player adapter shares, so that an adapter only translates (its
 * player's events, ladder, request carrier and ABR hook). It owns the session, the request
 * pipeline (decide, write `rtp`, report the download), the controller `attach` returns, and one
 * rule for each default that comes from the player, fed by a small `PlayerDescription`.
 */
import { checkCmcdMode, withoutCmcd, writeRtp, type CmcdMode } from 'sammy-pacing-protocol';
import type { MediaKind } from '../policy/types.js';
import { openSession, type SammySession } from '../session/session.js';
import type { SammyDecision, SegmentSample, TrackState } from '../session/types.js';
import { paceOnlyModeOf, type AdapterController, type AdapterOptions, type PaceOnlyMode, type SammyMode } from './types.js';
import type { SammyParameters } from '../config.js';
import { ADAPTER_OPTIONS, withOptions } from '../options.js';

/** The adapters' own option keys (options.ts ADAPTER_OPTIONS), which the compiler holds to `AdapterOptions` both ways. */
type AdapterOptionKey = keyof typeof ADAPTER_OPTIONS;
// (A type, not code: the bundle carries none of it.)
type OwnKeysListed<T extends true> = T;
type ListedOnce = OwnKeysListed<
  [AdapterOptionKey] extends [Exclude<keyof AdapterOptions<unknown>, keyof SammyParameters>]
    ? [Exclude<keyof AdapterOptions<unknown>, keyof SammyParameters>] extends [AdapterOptionKey]
      ? true
      : false
    : false
>;

/** What an adapter tells the kit about its player; the player-derived defaults follow from it alone. */
export interface PlayerDescription<Settings> {
  /** The adapter's package, named in errors: 'sammy-pacing-dashjs'. */
  readonly package: string;
  /** The player's buffer target as it stands, seconds: what a request's pace is scaled to unless the `bufferTargetSeconds` option says. */
  bufferTargetSeconds(): number;
  /** The lowest that target can become once the content is known, seconds (dash.js: long-form or not); the validation's level. Default: `bufferTargetSeconds()`. */
  lowestBufferTargetSeconds?(): number;
  /** What pace-only mode reads the player's ABR rules from, as they stand. */
  settings(): Settings;
  /** Where the player's own CMCD travels: the default of `cmcdMode`. */
  cmcdMode(): CmcdMode;
  /** The player's own start with nothing measured, kbps: the default of `initialVideoBitrateKbps` (unsaid: 1000). */
  startKbps?(): number;
  /** What the player multiplies its start value by before its first pick (Shaka: `bandwidthDowngradeTarget`). Default 1. */
  startDiscount?(): number;
  /** The player picks its first rung from its start value before any ABR hook runs (dash.js), so Sammy's own mode sets it too. */
  readonly firstPickFromStart?: boolean;
}

/** A media request as the adapter reads it from its player (the kit adds the URL and the buffer target). */
export interface MediaRequest {
  mediaType: MediaKind;
  /** Bitrate of the requested segment, kbps. */
  bitrateKbps: number;
  /** Top of each media type's ladder, kbps (0: no such type, or its bitrate counted in the other's). */
  ladderTopKbps: Record<MediaKind, number>;
  /** Buffer of each media type, seconds. */
  bufferLevelSeconds: Record<MediaKind, number>;
}

/** The stream's media types for the session: those with a ladder, and always the requesting one (for its buffer). */
function trackStates({ mediaType, ladderTopKbps, bufferLevelSeconds }: MediaRequest): Partial<Record<MediaKind, TrackState>> {
  const tracks: Partial<Record<MediaKind, TrackState>> = {};
  for (const kind of ['video', 'audio'] as const) {
    if (ladderTopKbps[kind] > 0 || kind === mediaType)
      tracks[kind] = { ladderTopKbps: ladderTopKbps[kind], bufferLevelSeconds: bufferLevelSeconds[kind] };
  }
  return tracks;
}

/** The part of a player's request the pipeline rewrites: its URL and headers carry CMCD. */
export interface RequestCarrier {
  url: string;
  headers?: Record<string, string>;
}

/** What the adapter does when the controller changes something in its player. */
interface ControllerHooks {
  enabled?(on: boolean): void;
  cmcdMode?(mode: CmcdMode): void;
  /** Removes what attach installed; the kit then ends the session. */
  detach(): void;
}

export interface AdapterKit {
  readonly session: SammySession;
  readonly paceOnly: boolean;
  /** Sammy picks bitrates now: its own mode, on, attached. */
  picks(): boolean;
  cmcdMode(): CmcdMode;
  /**
   * The start the player should take now, kbps in the player's unit (before its own discount), or
   * undefined for its own: from the initial-phase history while Sammy is on (pace-only mode: only
   * once the history has a sample; Sammy's own mode: only where the player's first pick ignores
   * the ABR hook).
   */
  startKbps(): number | undefined;
  /**
   * Decides a request (`media` undefined: not a media segment), writes its `rtp` into the carrier
   * and keeps the decision under `key` (the player's own object for the request) until `ended`
   * or `failed`. Never throws; undefined when nothing is paced.
   */
  send(carrier: RequestCarrier, media: () => MediaRequest | undefined, key: object): SammyDecision | undefined;
  /**
   * The response to the request kept under `key` ended whole: its sample (once; undefined for a
   * request not kept). `durationMs`: the player's own timing, else the time since `send`.
   */
  ended(key: object, bytes: number, durationMs?: number): SegmentSample | undefined;
  /** The request kept under `key` will not end whole (aborted, an error status, from a cache): no sample. */
  failed(key: object): void;
  controller(hooks: ControllerHooks): AdapterController;
}

export function createAdapterKit<Settings>(
  options: AdapterOptions<PaceOnlyMode<Settings>>,
  player: PlayerDescription<Settings>,
): AdapterKit {
  const { mode, enabled, cmcdMode: requestedCmcdMode, bufferTargetSeconds, initialHistory, ...parameters } = options;
  // (Their types only: the session applies its own defaults to them.)
  withOptions({ enabled, bufferTargetSeconds }, ADAPTER_OPTIONS);
  const paceOnlyMode = paceOnlyModeOf<PaceOnlyMode<Settings>>(mode, `${player.package}/pace-only`);
  const paceOnly = paceOnlyMode !== undefined;
  const targetSeconds = () => bufferTargetSeconds ?? player.bufferTargetSeconds();
  const validatedSeconds = bufferTargetSeconds ?? (player.lowestBufferTargetSeconds ?? player.bufferTargetSeconds)();
  const playerAbr = () => paceOnlyMode?.playerAbr(player.settings(), validatedSeconds);
  const start = player.startKbps?.();
  const session = openSession({
    // (An undefined override keeps the default; the compiler checks every adapter option was taken out above.)
    parameters: {
      initialVideoBitrateKbps: start,
      ...(parameters satisfies Partial<SammyParameters> & { [K in AdapterOptionKey]?: never }),
    },
    enabled,
    initialHistory,
    playerAbr: playerAbr(),
    bufferTargetSeconds: validatedSeconds,
  });
  let cmcdMode = checkCmcdMode(requestedCmcdMode ?? player.cmcdMode());
  // Each paced request until its response ends, by the player's own object for it.
  const inFlight = new WeakMap<object, { decision: SammyDecision; sentAtMs: number }>();
  let attached = true;

  return {
    session,
    paceOnly,
    picks: () => attached && !paceOnly && session.enabled,
    cmcdMode: () => cmcdMode,
    startKbps() {
      if (attached && session.enabled && (paceOnly ? session.hasHistory : player.firstPickFromStart))
        return session.startBitrateKbps() / (player.startDiscount?.() ?? 1);
    },
    send(carrier, media, key) {
      let decision: SammyDecision | undefined;
      try {
        const request = media();
        if (request) {
          const { mediaType, bitrateKbps } = request;
          decision = session.decide({
            mediaType,
            bitrateKbps,
            tracks: trackStates(request),
            url: withoutCmcd(carrier.url),
            bufferTargetSeconds: targetSeconds(),
          });
        }
        Object.assign(carrier, writeRtp({ url: carrier.url, headers: carrier.headers ?? {} }, decision?.paceRateKbps, cmcdMode));
      } catch (error) {
        // Never hold a segment back: an unpaced request beats a failed one.
        console.error('Sammy:', error);
      }
      if (decision) inFlight.set(key, { decision, sentAtMs: Date.now() });
      return decision;
    },
    ended(key, bytes, durationMs) {
      const sent = inFlight.get(key);
      inFlight.delete(key);
      return sent && session.addSample(sent.decision, { bytes, durationMs: durationMs ?? Date.now() - sent.sentAtMs });
    },
    failed: (key) => void inFlight.delete(key),
    controller: (hooks) => ({
      get enabled() {
        return session.enabled;
      },
      setEnabled(on: boolean) {
        if (on === session.enabled) return;
        session.setEnabled(on);
        hooks.enabled?.(on);
      },
      get parameters() {
        return session.parameters;
      },
      update: (changes) => session.update(changes, playerAbr()),
      mode: paceOnly ? 'pace-only' : 'sammy',
      get cmcdMode() {
        return cmcdMode;
      },
      setCmcdMode(next: CmcdMode) {
        cmcdMode = checkCmcdMode(next);
        hooks.cmcdMode?.(cmcdMode);
      },
      get phase() {
        return session.phase;
      },
      on: session.on,
      detach() {
        if (!attached) return;
        attached = false;
        hooks.detach();
        session.destroy();
      },
    }),
  };
}

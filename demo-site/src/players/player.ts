/**
 * What the page needs of a player, whichever it is: one small module per player (dashjs.ts,
 * shaka.ts, hlsjs.ts) implements it, and load.ts imports only the chosen one. Type imports only
 * here: the page's own chunk must not pull in any player.
 */
import type { CmcdMode, CongestionControl } from 'sammy-pacing-protocol';
import type { SammyController } from 'sammy-pacing-dashjs';

export const PLAYER_NAMES = ['dashjs', 'shaka', 'hlsjs'] as const;
export type PlayerName = (typeof PLAYER_NAMES)[number];

export const PLAYER_LABELS: Readonly<Record<PlayerName, string>> = Object.freeze({
  dashjs: 'dash.js',
  shaka: 'Shaka Player',
  hlsjs: 'hls.js',
});

export function isPlayerName(value: unknown): value is PlayerName {
  return (PLAYER_NAMES as readonly unknown[]).includes(value);
}

/** What a player plays of the origin's ladder: the DASH manifest, or the HLS multivariant playlist. */
export type StreamFormat = 'dash' | 'hls';

/**
 * What the page uses of the controller an adapter's `attach` returns. Every adapter's
 * `SammyController` is the session core's AdapterController; each player module returns its own
 * adapter's, checked against this.
 */
export type DemoSammy = Pick<
  SammyController,
  'enabled' | 'setEnabled' | 'update' | 'parameters' | 'phase' | 'on' | 'setCmcdMode' | 'cmcdMode'
>;

/** The session core's types, which every adapter re-exports alike. */
export type { MediaKind, SammyDecision, SegmentSample } from 'sammy-pacing-dashjs';

/**
 * A c0/c1 the session refused. By name, not `instanceof SammyConfigError`: importing the class
 * would put an adapter into the page's own chunk.
 */
export function isSammyConfigError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'SammyConfigError';
}

export interface PlayerOptions {
  video: HTMLVideoElement;
  /** How Sammy starts. */
  sammy: { enabled: boolean; cmcdMode: CmcdMode };
  /** The `Sammy-Congestion-Control` request header's value, read per request so a change applies to the next one. */
  congestionControl(): CongestionControl | undefined;
  /** A player error the viewer should see. */
  onError(message: string): void;
  /**
   * A stall (true) or its end (false) the media element may not report: Shaka stalls by setting
   * the playback rate to 0, where the element fires no `waiting`.
   */
  onBuffering(stalled: boolean): void;
}

export interface DemoPlayer {
  readonly name: PlayerName;
  readonly format: StreamFormat;
  /** The player library's own object (dash.js MediaPlayer, shaka.Player, Hls), for tests and the console. */
  readonly raw: unknown;
  /** The Sammy controller from the adapter's own `attach`. */
  readonly sammy: DemoSammy;
  /** Plays this absolute URL from the start (again, for a new origin); the video loops at its end. */
  load(url: string): void;
  /** Seconds of video buffered ahead of the playhead; undefined before there is a video stream. */
  bufferLevelSeconds(): number | undefined;
}

/** A player module: makes the player, with Sammy attached as its adapter's README says. */
export type CreatePlayer = (options: PlayerOptions) => Promise<DemoPlayer>;

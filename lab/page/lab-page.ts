/**
 * What a player module (dashjs.ts, shaka.ts, hlsjs.ts) gets from the player-neutral page (main.ts),
 * and what it gives back: it sets its player up for the arm and reports chunks, rendered qualities,
 * errors and Sammy's decisions in the one shape the bench measures (PageState).
 */
import type { SammyControl } from 'sammy-pacing-core';

/** The page's URL parameters, as every player needs them. */
export interface PageParams {
  arm: string;
  /** The DASH manifest, absolute (Shaka's load needs it so). */
  mpdUrl: string;
  /** The HLS multivariant playlist beside it, absolute (hls.js 1.7.4 drops the playlist's CMCD with a path); absent unless the bench gave `m3u8`. */
  m3u8Url?: string;
  /** The flat-cap arm's rtp, kbps. */
  capKbps: number;
  /** Every player's buffer target (the bench's --buffer-seconds); undefined: the player's defaults. */
  bufferSeconds?: number;
}

/** One finished media segment as the player reports it; the page adds the request's Resource Timing and the server's report. */
export interface ChunkReport {
  /** The URL as the player knows it (its CMCD query may be missing: the page matches without it). */
  url: string;
  mediaType: string;
  bitrateKbps: number;
  segmentSeconds: number;
  /** Body bytes as the player counted them, for when Resource Timing has no size. */
  bytes?: number;
}

export interface LabPage {
  readonly video: HTMLVideoElement;
  readonly params: PageParams;
  /** A media segment finished downloading. */
  chunk(report: ChunkReport): void;
  /** The video quality on screen changed (rendered, not merely chosen), kbps. */
  quality(kbps: number): void;
  error(error: unknown): void;
  /** Records Sammy's phases and its video paces. */
  sammy(controller: Pick<SammyControl, 'on'>): void;
}

/** A player set up for its arm, not yet loading: `start` is the play request. */
export interface LabPlayer {
  start(): void | Promise<void>;
}

export type SetupPlayer = (page: LabPage) => LabPlayer | Promise<LabPlayer>;

export function unknownArm(player: string, arm: string): Error {
  return new Error(`unknown ${player} arm ${arm}`);
}

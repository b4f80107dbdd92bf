/**
 * What the lab page records into `window.__lab` (page/main.ts writes it, the bench reads it).
 * Types only, so the browser page and the Node bench share one definition.
 */
import type { PacingReport } from 'sammy-pacing-protocol';
import type { Stall } from 'sammy-pacing-protocol/measure';

/** One media segment download, as the page measured it. */
export interface PageChunk {
  url: string;
  mediaType: string;
  /** ms since the epoch, request sent → last byte. */
  start: number;
  end: number;
  bytes: number;
  bitrateKbps: number;
  segmentSeconds: number;
  server: PacingReport;
  /** Resource Timing's nextHopProtocol of the request (`h2`, `http/1.1`); absent without an entry. */
  protocol?: string;
}

/**
 * The HTTP version every media request (manifest, init and media segments under MEDIA_PATH) went over,
 * from Resource Timing's `nextHopProtocol`, as the page saw each request complete.
 */
export interface PageProtocols {
  /** The protocol the bench asked for (`?proto=`), when it asked for one. */
  expected?: string;
  /** Completed media requests by nextHopProtocol (`''` when the browser did not say). */
  media: Record<string, number>;
  /** Media requests that did not go over `expected`: `<protocol> <path>`, at most the first 20. */
  mismatches: string[];
}

export interface PageState {
  arm: string;
  role: string;
  playRequestedAt: number;
  startedAt?: number;
  /** Filled in place by the page's StallLog (epoch ms); `end` absent while a stall lasts. */
  stalls: Stall[];
  qualities: Array<{ t: number; kbps: number }>;
  chunks: PageChunk[];
  paces: Array<{ t: number; kbps: number | undefined; bufferSeconds: number; phase: string }>;
  /** Sammy's phase changes (initial ↔ playing). */
  phases: Array<{ t: number; phase: string }>;
  errors: string[];
  ended: boolean;
  /** Where the startup delay went: every request before the first `playing`, ms after the play request. */
  startupRequests?: Array<{ name: string; start: number; end: number }>;
  /** What the media went over (absent in pages from before it was recorded). */
  protocols?: PageProtocols;
  /** Buffered video ahead of the playhead, every 500 ms from the play request (absent in older pages). */
  buffer?: Array<{ t: number; seconds: number }>;
}

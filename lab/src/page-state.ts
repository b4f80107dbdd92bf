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
}

/**
 * What goes in and out of a session: the adapter's view of one request and one download, and
 * the payloads of the session's events. The policy's own types live in policy/.
 */
import type { MediaKind, Phase } from '../policy/types.js';

/** A media type present in the stream, as the player knows it when a request leaves. */
export interface TrackState {
  /** Highest bitrate of this media type's ladder, kbps. */
  ladderTopKbps: number;
  /** Buffer level of this media type, seconds. */
  bufferLevelSeconds: number;
  /**
   * The ladder the player picks from, kbps (video; optional): paceBase 'next-rung' finds the next
   * rung up in it. Without it, the ladder the session's bitrate rule last saw, else the top.
   */
  ladderKbps?: readonly number[];
}

/** One media segment request, as an adapter describes it to the session. */
export interface SegmentRequest {
  mediaType: MediaKind;
  /** Bitrate of the requested segment, kbps (whoever chose it). */
  bitrateKbps: number;
  /** The segment URL, without CMCD. */
  url: string;
  /** The media types of the stream; a muxed stream has video only. */
  tracks: Partial<Record<MediaKind, TrackState>>;
  /** The player's buffer target, seconds: the pace counts `fullBufferShare` of it as full. */
  bufferTargetSeconds: number;
}

/** One decision, made once for one media segment request: what was sent and what it was computed from. */
export interface SammyDecision {
  /** When the request left, ms since the epoch (the session's clock). */
  time: number;
  mediaType: MediaKind;
  phase: Phase;
  /** False when Sammy is switched off: the player's own ABR chose and no `rtp` was sent. */
  enabled: boolean;
  /** Bitrate of the requested segment, kbps. */
  bitrateKbps: number;
  /** Buffer level of this media type the bitrate choice used, seconds. */
  bufferLevelSeconds: number;
  /** Throughput estimate the bitrate choice used, kbps; undefined before any sample. */
  estimateKbps: number | undefined;
  /** Highest video bitrate of the ladder, kbps (0: no video). */
  topVideoBitrateKbps: number;
  /**
   * What the pace carries at 1×, kbps: the video rung the pace is based on (the top; with
   * paceBase 'next-rung' the rung fetched at the top of the ladder, else the next one up) + the top audio bitrate.
   */
  paceBaseKbps: number;
  /** Buffer level the pace used: the lowest of the stream's media types, seconds. */
  paceBufferLevelSeconds: number;
  /** The player's buffer target the pace was scaled to, seconds (the request's, never below the one the parameters were validated at). */
  bufferTargetSeconds: number;
  /** The `rtp` sent with the request, kbps; undefined when none was sent. */
  paceRateKbps: number | undefined;
  /**
   * The pace was held below the schedule's, at a share of the link's capacity as the probes
   * measured it (`probeInterval`): this download measures its pace, not the link.
   */
  held: boolean;
  /** The segment URL, without CMCD. */
  url: string;
}

/** One finished media segment download, as the client measured it. */
export interface SegmentSample {
  /** When the download finished, ms since the epoch (the session's clock). */
  time: number;
  mediaType: MediaKind;
  /** The segment URL, without CMCD. */
  url: string;
  bytes: number;
  /** From request sent to last byte received, ms. */
  durationMs: number;
  /** Chunk throughput, kbps. */
  throughputKbps: number;
  phase: Phase;
  /** The `rtp` the request carried, kbps; undefined = unpaced. */
  paceRateKbps: number | undefined;
  bitrateKbps: number;
}

/** The events every adapter's controller forwards. */
export interface SammyEvents extends Record<string, unknown> {
  decision: SammyDecision;
  sample: SegmentSample;
  phase: Phase;
}

/** Which half of a session a request belongs to (paper, Section 4). */
export type Phase = 'initial' | 'playing';

export type MediaKind = 'video' | 'audio';

/** How CMCD travels: the `CMCD` query parameter, or `CMCD-*` headers (`rtp` in `CMCD-Status`). */
export type CmcdMode = 'query' | 'header';

/** The tunable numbers of the rule. */
export interface SammyParameters {
  /** Pace multiplier of the top bitrate at an empty buffer. */
  c0: number;
  /** Pace multiplier of the top bitrate at a full buffer. */
  c1: number;
  /** Bandwidth safety factor of the bitrate choice, in (0, 1]. */
  beta: number;
  /** Look-ahead duration D of the bitrate choice, seconds. */
  lookaheadSeconds: number;
  /** Share of measured throughput lost to HTTP/TCP headers and framing, in [0, 0.5). */
  overhead: number;
}

/** One decision, made for one media segment request. */
export interface SammyDecision {
  /** `Date.now()` when the request left. */
  time: number;
  mediaType: MediaKind;
  phase: Phase;
  /** False when Sammy is switched off: dash.js's own ABR chose and no `rtp` was sent. */
  enabled: boolean;
  /** Buffer level of this media type, seconds. */
  bufferLevelSeconds: number;
  /** Throughput estimate the bitrate choice used, kbps; undefined before any sample. */
  throughputKbps: number | undefined;
  /** Bitrate of the requested segment, kbps. */
  bitrateKbps: number;
  /** Highest video bitrate of the ladder, kbps. */
  topBitrateKbps: number;
  /** The `rtp` sent with the request, kbps; undefined when none was sent. */
  paceRateKbps: number | undefined;
  /** The segment URL, without the CMCD query parameter. */
  url: string;
}

/** One finished media segment download, as the client measured it. */
export interface SegmentSample {
  /** `Date.now()` when the download finished. */
  time: number;
  mediaType: MediaKind;
  /** The segment URL, without the CMCD query parameter. */
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

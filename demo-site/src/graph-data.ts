import { TimeSeries } from './time-series.js';

/** Every series the three graphs draw, by the name the window hook reports it under. */
export const SERIES_NAMES = [
  /** Client-measured throughput of each video segment, kbps. */
  'chunkThroughput',
  /**
   * Rate each video response's body was delivered at, kbps: the origin's delivery record
   * (`achievedKbps`, bytes over first byte written → last byte acknowledged). Only from an origin
   * that publishes records (the reference origin); none from a Fastly service.
   */
  'achievedRate',
  /**
   * The kernel's TCP_INFO `delivery_rate` in each video response's `Server-Timing`, kbps. The server
   * reads it when it writes the headers, before any of the body is sent: it is the connection's
   * latest estimate (from earlier data), not this response's rate. Plotted at the response's first byte.
   */
  'tcpDeliveryRate',
  /** Pace rate requested as CMCD rtp with each video request, kbps (null: none sent). */
  'paceRate',
  /** Bitrate of each requested video segment, kbps. */
  'bitrate',
  /** Highest video bitrate of the ladder, kbps. */
  'topBitrate',
  /** Video buffer level, s. */
  'bufferLevel',
  /** Smoothed RTT from Server-Timing (taken before the body), ms. */
  'rtt',
  /** Retransmitted segments on the connection so far, from Server-Timing. */
  'retransmits',
] as const;

export type SeriesName = (typeof SERIES_NAMES)[number];

/** The graphs' data for one session. */
export class GraphData {
  readonly series = Object.fromEntries(SERIES_NAMES.map((name) => [name, new TimeSeries()])) as Record<SeriesName, TimeSeries>;

  /** Point count per series (what end-to-end tests wait on). */
  counts(): Record<SeriesName, number> {
    return Object.fromEntries(SERIES_NAMES.map((name) => [name, this.series[name].length])) as Record<SeriesName, number>;
  }

  clear(): void {
    for (const name of SERIES_NAMES) this.series[name].clear();
  }
}

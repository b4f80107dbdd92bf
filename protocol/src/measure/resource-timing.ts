/**
 * Reading a pacing server's `Server-Timing` report from the browser's Resource Timing entries.
 * The types here are structural (what `PerformanceResourceTiming` has), so this module compiles
 * and tests without DOM types and a Node consumer can import it.
 */
import { reportFromServerTimingEntries, SERVER_TIMING_METRICS, type PacingReport, type ServerTimingEntry } from '../server-timing.js';

/** The part of a `PerformanceResourceTiming` entry read here. Times are ms after the page's time origin. */
export interface ResourceTimingLike {
  readonly name: string;
  readonly startTime: number;
  readonly requestStart: number;
  readonly responseStart: number;
  readonly responseEnd: number;
  readonly encodedBodySize: number;
  readonly serverTiming?: readonly ServerTimingEntry[];
}

/** One response as the page saw it, with the server's report on it. Times in epoch ms. */
export interface ResourceReport {
  /** The URL as requested (with any query, CMCD included). */
  url: string;
  /** Request sent; the fetch start when the browser hides the detail (cross-origin without `Timing-Allow-Origin`). */
  requestedAt: number;
  /**
   * First byte of the response. The server took the report's TCP figures (RTT, delivery rate,
   * retransmits) when it wrote the headers, before any of this body was sent.
   */
  respondedAt: number;
  /** Last byte received. */
  finishedAt: number;
  /** Body bytes as transferred; undefined when hidden or 0. */
  bytes: number | undefined;
  report: PacingReport;
}

const PACING_METRICS: ReadonlySet<string> = new Set(Object.values(SERVER_TIMING_METRICS));

/** The response carries a pacing server's metrics (cross-origin they need `Timing-Allow-Origin`). */
export function hasPacingReport(entry: ResourceTimingLike): boolean {
  return (entry.serverTiming ?? []).some((t) => PACING_METRICS.has(t.name));
}

/** The entry's times on the wall clock and the server's report; `timeOrigin` is `performance.timeOrigin`. */
export function readResourceReport(entry: ResourceTimingLike, timeOrigin: number): ResourceReport {
  const requested = entry.requestStart > 0 ? entry.requestStart : entry.startTime;
  const responded = entry.responseStart > 0 ? entry.responseStart : requested;
  return {
    url: entry.name,
    requestedAt: timeOrigin + requested,
    respondedAt: timeOrigin + responded,
    finishedAt: timeOrigin + entry.responseEnd,
    bytes: entry.encodedBodySize > 0 ? entry.encodedBodySize : undefined,
    report: reportFromServerTimingEntries(entry.serverTiming ?? []),
  };
}

/**
 * The newest entry for a request URL. `key` maps both the URL and each entry's name to what
 * identifies a request, e.g. the URL without its CMCD query, which a player may add after it
 * reports the URL.
 */
export function latestResourceEntry<T extends ResourceTimingLike>(
  entries: readonly T[],
  url: string,
  key: (url: string) => string = (u) => u,
): T | undefined {
  const wanted = key(url);
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (key(entry.name) === wanted) return entry;
  }
  return undefined;
}

import { reportFromServerTimingEntries, SERVER_TIMING_METRICS, type PacingReport } from 'sammy-pacing-protocol';
import { toWallClock } from './wall-clock.js';

export interface TimedReport {
  /** When the response finished, wall-clock ms. */
  time: number;
  url: string;
  report: PacingReport;
}

const SAMMY_METRICS = new Set<string>(Object.values(SERVER_TIMING_METRICS));

/**
 * Reads the `Server-Timing` figures of every response the page receives, through Resource
 * Timing. Cross-origin (a Fastly service) the browser only exposes them when the response
 * carries `Timing-Allow-Origin`.
 */
export function watchServerTiming(onReport: (r: TimedReport) => void): () => void {
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as PerformanceResourceTiming[]) {
      const timings = entry.serverTiming ?? [];
      if (!timings.some((t) => SAMMY_METRICS.has(t.name))) continue;
      onReport({
        time: toWallClock(entry.responseEnd, performance.timeOrigin),
        url: entry.name,
        report: reportFromServerTimingEntries(timings),
      });
    }
  });
  // No `buffered`: the page wants this session's responses, and observers see entries even
  // once the Resource Timing buffer (which dash.js reads too, so the page never clears it) is full.
  observer.observe({ type: 'resource' });
  return () => observer.disconnect();
}

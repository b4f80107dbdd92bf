import { hasPacingReport, readResourceReport, type ResourceReport } from 'sammy-pacing-protocol/measure';

/**
 * Reads the `Server-Timing` report of every response the page receives from a pacing server,
 * through Resource Timing. Cross-origin (a Fastly service) the browser only exposes it when the
 * response carries `Timing-Allow-Origin`.
 */
export function watchServerTiming(onReport: (r: ResourceReport) => void): () => void {
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as PerformanceResourceTiming[]) {
      if (hasPacingReport(entry)) onReport(readResourceReport(entry, performance.timeOrigin));
    }
  });
  // No `buffered`: the page wants this session's responses, and observers see entries even
  // once the Resource Timing buffer (which dash.js reads too, so the page never clears it) is full.
  observer.observe({ type: 'resource' });
  return () => observer.disconnect();
}

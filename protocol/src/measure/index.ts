/**
 * `sammy-pacing-protocol/measure`: what the pages and tests that watch playback measure the same
 * way — statistics over samples, the stall (rebuffer) log, and the server's report read from
 * Resource Timing. Browser-safe, no dependencies beyond the protocol itself.
 */
export { quantile, median, mean, relativeChange } from './statistics.js';
export { StallLog, closeStalls, totalStallTime, type Stall, type StallInterval } from './stall-log.js';
export {
  hasPacingReport,
  readResourceReport,
  latestResourceEntry,
  type ResourceTimingLike,
  type ResourceReport,
} from './resource-timing.js';

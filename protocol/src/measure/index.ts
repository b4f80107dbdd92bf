/**
 * `sammy-pacing-protocol/measure`: what the pages and tests that watch playback measure the same
 * way — statistics over samples, the stall (rebuffer) log, and the server's report read from
 * Resource Timing. Browser-safe, no dependencies beyond the protocol itself.
 */
export * from './statistics.js';
export * from './stall-log.js';
export * from './resource-timing.js';
export * from './arrival.js';

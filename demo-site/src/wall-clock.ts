/**
 * Times on the page's graphs are wall-clock ms since the epoch. Some timestamps arrive as
 * `performance.now()` values instead (Resource Timing): anything smaller than this cannot be an epoch time
 * (it is 2001-09-09) and is taken as relative to the page's time origin.
 */
const EPOCH_MS_FLOOR = 1e12;

export function toWallClock(time: number, timeOrigin: number): number {
  return time < EPOCH_MS_FLOOR ? timeOrigin + time : time;
}

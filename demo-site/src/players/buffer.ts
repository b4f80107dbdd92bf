/** A buffered time range, seconds (Shaka's `getBufferedInfo()` ranges). */
export interface BufferedRange {
  start: number;
  end: number;
}

/**
 * Seconds buffered ahead of the playhead: the range holding `time` (or starting within `gap`
 * after it, a gap the player jumps), else 0.
 */
export function bufferAhead(ranges: readonly BufferedRange[], time: number, gap = 0.1): number {
  const range = ranges.find((r) => r.start <= time + gap && r.end > time);
  return range ? Math.max(0, range.end - Math.max(time, range.start)) : 0;
}

/**
 * A playback session's stalls (rebuffers), fed from the media element's `playing` and `waiting`
 * events. The wait before the first frame is the startup delay, not a stall; repeated `waiting`
 * events during one stall are that one stall. Times are whatever clock the caller uses (the pages
 * use epoch ms), as long as it is one clock.
 */

/** One stall; `end` is absent while it lasts. Plain data, so a page can expose it as is. */
export interface Stall {
  start: number;
  end?: number;
}

/** A stall with both ends. */
export interface StallInterval {
  start: number;
  end: number;
}

export class StallLog {
  private startedAt: number | undefined;

  /**
   * @param stalls where the stalls are kept: pass an array the page already exposes (e.g. a
   *   `window.__lab` state a bench reads) to have it filled in place.
   */
  constructor(private readonly stalls: Stall[] = []) {}

  /** Playback runs: the first call marks the end of startup; any call ends a stall in progress. */
  playing(time: number): void {
    this.startedAt ??= time;
    const last = this.stalls.at(-1);
    if (last && last.end === undefined) last.end = Math.max(time, last.start);
  }

  /** Playback waits for data: a stall begins, unless playback has not started yet or one already lasts. */
  waiting(time: number): void {
    if (this.startedAt === undefined || this.ongoing) return;
    this.stalls.push({ start: time });
  }

  /** When playback first started (the first `playing`), if it has. */
  get playbackStartedAt(): number | undefined {
    return this.startedAt;
  }

  get ongoing(): boolean {
    const last = this.stalls.at(-1);
    return last !== undefined && last.end === undefined;
  }

  get count(): number {
    return this.stalls.length;
  }

  /** Closed copies of the stalls; one still lasting ends at `now`. */
  intervals(now: number): StallInterval[] {
    return closeStalls(this.stalls, now);
  }

  /** Total stalled time up to `now`. */
  totalMs(now: number): number {
    return totalStallTime(this.intervals(now));
  }
}

/** Closed copies of recorded stalls (e.g. read back from a page); one still lasting ends at `now`. */
export function closeStalls(stalls: readonly Stall[], now: number): StallInterval[] {
  return stalls.map((s) => ({ start: s.start, end: s.end ?? Math.max(now, s.start) }));
}

/** Summed length of closed stalls, in their clock's unit. */
export function totalStallTime(intervals: readonly StallInterval[]): number {
  return intervals.reduce((sum, s) => sum + (s.end - s.start), 0);
}

/** One stall: playback waiting for data after it had started. `end` is undefined while it lasts. */
export interface Stall {
  start: number;
  end: number | undefined;
}

/** Stalls (rebuffers) of one session, in wall-clock ms. */
export class RebufferLog {
  private readonly stalls: Stall[] = [];

  /** A stall begins; a second start while one lasts is the same stall (players repeat `waiting`). */
  stallStarted(time: number): void {
    if (this.ongoing) return;
    this.stalls.push({ start: time, end: undefined });
  }

  stallEnded(time: number): void {
    const last = this.stalls[this.stalls.length - 1];
    if (last && last.end === undefined) last.end = Math.max(time, last.start);
  }

  get ongoing(): boolean {
    const last = this.stalls.at(-1);
    return last !== undefined && last.end === undefined;
  }

  get count(): number {
    return this.stalls.length;
  }

  /** Closed copies of the stalls; one still lasting ends at `now`. */
  intervals(now: number): { start: number; end: number }[] {
    return this.stalls.map((s) => ({ start: s.start, end: s.end ?? Math.max(now, s.start) }));
  }

  /** Total stalled time up to `now`, ms. */
  totalMs(now: number): number {
    return totalMs(this.intervals(now));
  }
}

/** Summed length of closed stalls, ms. */
export function totalMs(intervals: readonly { start: number; end: number }[]): number {
  return intervals.reduce((sum, s) => sum + (s.end - s.start), 0);
}

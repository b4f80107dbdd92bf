/**
 * Run bookkeeping. A run is a contiguous period of playback with Sammy on (paced) or off
 * (unpaced), from the moment playback started: the initial phase belongs to no run, because
 * Sammy never paces it and it would blur the comparison.
 */

/** One video chunk, counted in the run its request started in. */
export interface RunChunk {
  throughputKbps: number;
  bitrateKbps: number;
}

export interface Run {
  readonly index: number;
  readonly paced: boolean;
  readonly startedAt: number;
  /** Undefined while the run lasts. */
  endedAt: number | undefined;
  readonly chunks: RunChunk[];
}

export class RunLog {
  private readonly runs: Run[] = [];
  private paced: boolean;

  constructor(paced: boolean) {
    this.paced = paced;
  }

  /** Sammy switched on or off. Before playback started this only sets how the first run begins. */
  setPaced(time: number, paced: boolean): void {
    if (paced === this.paced) return;
    this.paced = paced;
    const current = this.current();
    if (!current) return;
    current.endedAt = time;
    this.begin(time);
  }

  /** Playback started: the first run begins (later calls, e.g. after a stall, change nothing). */
  playbackStarted(time: number): void {
    if (this.runs.length === 0) this.begin(time);
  }

  /** The run that was going on at `time`, if any. */
  runAt(time: number): Run | undefined {
    for (let i = this.runs.length - 1; i >= 0; i--) {
      const run = this.runs[i]!;
      if (run.startedAt <= time) return run.endedAt === undefined || time < run.endedAt ? run : undefined;
    }
    return undefined;
  }

  /** Counts a chunk in the run its request started in; a chunk requested before playback is in none. */
  addChunk(requestTime: number, chunk: RunChunk): Run | undefined {
    const run = this.runAt(requestTime);
    run?.chunks.push(chunk);
    return run;
  }

  current(): Run | undefined {
    const last = this.runs[this.runs.length - 1];
    return last?.endedAt === undefined ? last : undefined;
  }

  all(): readonly Run[] {
    return this.runs;
  }

  private begin(time: number): void {
    this.runs.push({ index: this.runs.length + 1, paced: this.paced, startedAt: time, endedAt: undefined, chunks: [] });
  }
}

/**
 * Bounded buffers of (wall-clock time, value) points, one per graph series, and the joining of
 * several into the column layout uPlot draws from: one shared x array; `undefined` where a series
 * has no point at that time (uPlot draws straight across it) and `null` where the series itself
 * has a gap (uPlot breaks the line, e.g. no pace rate while Sammy is off).
 */

/** Wall-clock time in ms since the epoch, and a value (null = a deliberate gap). */
export interface Point {
  t: number;
  v: number | null;
}

export class TimeSeries {
  private readonly buffer: Point[] = [];

  /** Keeps at most `capacity` points; the oldest go first (a long session must not grow without end). */
  constructor(readonly capacity = 4000) {
    if (!(capacity > 0)) throw new RangeError(`capacity must be positive, got ${capacity}`);
  }

  /** Adds a point; points arrive in time order in practice, but a late one is inserted in place. */
  push(t: number, v: number | null): void {
    if (!Number.isFinite(t)) return;
    const value = v === null || Number.isFinite(v) ? v : null;
    let i = this.buffer.length;
    while (i > 0 && this.buffer[i - 1]!.t > t) i--;
    this.buffer.splice(i, 0, { t, v: value });
    if (this.buffer.length > this.capacity) this.buffer.splice(0, this.buffer.length - this.capacity);
  }

  get length(): number {
    return this.buffer.length;
  }

  /** The newest point, if any. */
  last(): Point | undefined {
    return this.buffer[this.buffer.length - 1];
  }

  points(): readonly Point[] {
    return this.buffer;
  }

  clear(): void {
    this.buffer.length = 0;
  }
}

/** uPlot's aligned data: x in seconds since the epoch, then one y column per series. */
export type AlignedColumns = [number[], ...(number | null | undefined)[][]];

/**
 * Joins series on their timestamps (ms → uPlot's seconds), keeping points at or after `fromTime`.
 * Each series gets a value only at its own timestamps, `undefined` elsewhere.
 */
export function alignSeries(series: readonly TimeSeries[], fromTime = -Infinity): AlignedColumns {
  const times = new Set<number>();
  for (const s of series) for (const p of s.points()) if (p.t >= fromTime) times.add(p.t);
  const xs = [...times].sort((a, b) => a - b);
  const index = new Map(xs.map((t, i) => [t, i]));
  const columns = series.map(() => new Array<number | null | undefined>(xs.length).fill(undefined));
  series.forEach((s, k) => {
    for (const p of s.points()) {
      const i = index.get(p.t);
      if (i !== undefined) columns[k]![i] = p.v;
    }
  });
  return [xs.map((t) => t / 1000), ...columns];
}

/**
 * For each column of aligned data, the index of its last value (x: the last row), or null when the
 * column has none: what a legend shows as "latest" for each series.
 */
export function lastValueIndexes(columns: AlignedColumns): (number | null)[] {
  return columns.map((column, k) => {
    if (k === 0) return column.length > 0 ? column.length - 1 : null;
    for (let i = column.length - 1; i >= 0; i--) if (column[i] != null) return i;
    return null;
  });
}

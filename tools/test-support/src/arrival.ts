/**
 * How a response's bytes arrived at the client: reads that come less than `gapMs` apart belong to
 * one line-rate burst. Kernel pacing sends ~1 ms of data per burst; userspace timers send more.
 */

/** One read on the client: ms since the request, bytes. */
export type TimedRead = readonly [atMs: number, bytes: number];

/** The bursts of a read log, bytes each, in arrival order. */
export function burstsOf(reads: readonly TimedRead[], gapMs = 1): number[] {
  const bursts: number[] = [];
  let current = 0;
  let last = -Infinity;
  for (const [at, bytes] of reads) {
    if (at - last < gapMs) current += bytes;
    else {
      if (current > 0) bursts.push(current);
      current = bytes;
    }
    last = at;
  }
  if (current > 0) bursts.push(current);
  return bursts;
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32): the same seed, the same run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

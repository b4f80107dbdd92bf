/** Small statistics and formatting helpers for the benchmark's printed figures. */
import { quantile } from 'sammy-pacing-protocol/measure';

export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

/** Percentile by linear interpolation between closest ranks (p in [0, 100]); NaN for no samples. */
export function percentile(xs: readonly number[], p: number): number {
  return quantile(xs, p / 100) ?? NaN;
}

/** 0.034 → " 3.4%" (signed when asked). */
export function pct(x: number, signed = false): string {
  const s = `${signed && x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
  return s.padStart(7);
}

export function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KB`;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` every `everyMs` until it holds or `timeoutMs` passes; returns whether it held. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (performance.now() > end) return false;
    await sleep(everyMs);
  }
}

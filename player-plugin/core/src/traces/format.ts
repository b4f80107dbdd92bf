/**
 * Writes a capacity curve in either public format: for generated traces (tests, a lab that
 * replays a `[seconds Mbps]` trace packet by packet as mahimahi does) and round trips.
 */
import { MAHIMAHI_PACKET_KBITS, type RateStep, type TraceFormat } from './trace.js';

/** `[seconds Mbps]` lines, one per step. The steps should be evenly spaced: the parser gives the last one the median gap. */
export function formatSecondsMbps(steps: readonly RateStep[]): string {
  return steps.map((s) => `${round(s.startSeconds, 6)} ${round(s.kbps / 1000, 6)}`).join('\n') + '\n';
}

/**
 * mahimahi lines: a delivery opportunity each time the curve has carried another 1500 bytes,
 * at the millisecond it did. The last line is the period (mahimahi repeats after it), so one
 * pass of the output lasts `periodSeconds` (rounded to the millisecond).
 */
export function formatMahimahi(steps: readonly RateStep[], periodSeconds: number): string {
  const periodMs = Math.round(periodSeconds * 1000);
  if (!(periodMs > 0)) throw new RangeError(`Sammy traces: a mahimahi trace needs a period of at least 1 ms, got ${periodSeconds} s`);
  const out: number[] = [];
  let credit = 0; // kilobits carried and not yet delivered as a packet
  let step = 0;
  for (let ms = 0; ms < periodMs; ms++) {
    while (step + 1 < steps.length && steps[step + 1]!.startSeconds * 1000 <= ms + 1e-9) step++;
    credit += (steps[step]?.kbps ?? 0) / 1000; // kbps × 1 ms = kilobits
    while (credit >= MAHIMAHI_PACKET_KBITS - 1e-9) {
      out.push(ms);
      credit -= MAHIMAHI_PACKET_KBITS;
    }
  }
  if (out.at(-1) !== periodMs) out.push(periodMs);
  return out.join('\n') + '\n';
}

export function formatTrace(format: TraceFormat, steps: readonly RateStep[], periodSeconds: number): string {
  return format === 'mahimahi' ? formatMahimahi(steps, periodSeconds) : formatSecondsMbps(steps);
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

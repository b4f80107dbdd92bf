/**
 * A bandwidth trace: the capacity of a link over time, as the public trace sets record it, and
 * what a transfer over it takes. Traces loop: a session longer than the trace starts it again.
 */

/** The two public formats: mahimahi's delivery opportunities, and `[seconds Mbps]` lines (Pensieve, FCC, HSDPA, Puffer). */
export type TraceFormat = 'mahimahi' | 'seconds-mbps';

/** Capacity from `startSeconds` until the next step starts (the last: until the period ends), kbps. */
export interface RateStep {
  startSeconds: number;
  kbps: number;
}

export interface BandwidthTrace {
  format: TraceFormat;
  /** One pass, seconds: the trace repeats after it. */
  periodSeconds: number;
  /** The capacity over one pass: ascending, the first at 0. mahimahi traces are binned (see `parseTrace`'s `binMs`). */
  steps: readonly RateStep[];
  /**
   * mahimahi only: the delivery opportunities of one pass exactly as the file lists them, ms
   * (one 1500-byte packet each; the last is also the period). For a packet-level emulator.
   */
  opportunitiesMs?: readonly number[];
}

/** Bytes one mahimahi delivery opportunity carries, and its kilobits. */
export const MAHIMAHI_PACKET_BYTES = 1500;
export const MAHIMAHI_PACKET_KBITS = (MAHIMAHI_PACKET_BYTES * 8) / 1000;

/** Mean capacity over one pass, kbps. */
export function meanKbps(trace: BandwidthTrace): number {
  let kbits = 0;
  trace.steps.forEach((step, i) => {
    const end = trace.steps[i + 1]?.startSeconds ?? trace.periodSeconds;
    kbits += step.kbps * (end - step.startSeconds);
  });
  return kbits / trace.periodSeconds;
}

/**
 * A link that follows a trace, looped, from `offsetSeconds` into it. A transfer runs at
 * min(capacity, cap) — the cap being a sender's pace: the sender never exceeds it, the link
 * never carries more than its capacity at that moment.
 */
export class TraceLink {
  private readonly starts: Float64Array;
  private readonly rates: Float64Array;
  private readonly period: number;

  constructor(
    readonly trace: BandwidthTrace,
    private readonly offsetSeconds = 0,
  ) {
    if (!(meanKbps(trace) > 0)) throw new RangeError('Sammy traces: the trace delivers nothing');
    this.starts = Float64Array.from(trace.steps, (s) => s.startSeconds);
    this.rates = Float64Array.from(trace.steps, (s) => s.kbps);
    this.period = trace.periodSeconds;
  }

  /** Capacity at a time since the link started, kbps. */
  capacityKbps(atSeconds: number): number {
    return this.rates[this.stepAt(this.phase(atSeconds))]!;
  }

  /** Seconds a transfer of `kbits` started at `startSeconds` takes at min(capacity, capKbps). */
  transferSeconds(startSeconds: number, kbits: number, capKbps = Infinity): number {
    if (!(kbits > 0)) return 0;
    if (!(capKbps > 0)) throw new RangeError(`Sammy traces: a transfer needs a positive rate cap, got ${capKbps}`);
    let remaining = kbits;
    let t = startSeconds;
    const pass = Math.floor((t + this.offsetSeconds) / this.period);
    let base = pass * this.period - this.offsetSeconds; // link time at which the current pass began
    let i = this.stepAt(this.phase(t));
    for (;;) {
      const end = base + (i + 1 < this.starts.length ? this.starts[i + 1]! : this.period);
      const rate = Math.min(this.rates[i]!, capKbps);
      const span = end - t;
      if (rate > 0 && rate * span >= remaining) return t + remaining / rate - startSeconds;
      remaining -= rate * span;
      t = end;
      if (++i === this.starts.length) {
        i = 0;
        base += this.period;
      }
    }
  }

  /** Kilobits the link could carry between two times at min(capacity, capKbps). */
  deliverableKbits(fromSeconds: number, toSeconds: number, capKbps = Infinity): number {
    let kbits = 0;
    let t = fromSeconds;
    while (t < toSeconds) {
      const phase = this.phase(t);
      const i = this.stepAt(phase);
      const stepEnd = t - phase + (i + 1 < this.starts.length ? this.starts[i + 1]! : this.period);
      const end = Math.min(stepEnd, toSeconds);
      kbits += Math.min(this.rates[i]!, capKbps) * Math.max(0, end - t);
      t = Math.max(end, t + 1e-9); // rounding at a step boundary must not stall the walk
    }
    return kbits;
  }

  private phase(atSeconds: number): number {
    const p = (atSeconds + this.offsetSeconds) % this.period;
    return p < 0 ? p + this.period : p;
  }

  /** Index of the step holding a phase in [0, period). */
  private stepAt(phase: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= phase) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

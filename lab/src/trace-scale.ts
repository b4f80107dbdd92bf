/**
 * `--trace-scale FACTOR` (issue 39): every rate of a trace × FACTOR, a real link's shape at another
 * mean. The public volatile traces (nyc-lte, 5g-driving, puffer) run 2–12 × the ladder's top; scaled
 * down to 1.1–2 × they replay what a real LTE link does to a player near its top rung, swings and
 * all, which a constant link or a generated one cannot.
 *
 * A `[seconds Mbps]` trace scales step by step. A mahimahi trace keeps its millisecond detail: its
 * i-th opportunity (i × 1500 bytes carried by then) becomes floor(FACTOR × i) − floor(FACTOR × (i − 1))
 * opportunities at the same millisecond, so the scaled trace has carried FACTOR × as many bytes at
 * every opportunity of the original, and the period stays the last line.
 */
import type { BandwidthTrace } from 'sammy-pacing-core/traces';
import type { LabTrace } from './traces.js';

/** The flag's value as a factor: a positive finite number, or an error saying what it takes. */
export function parseTraceScale(value: string): number {
  const text = value.trim();
  const factor = text === '' ? NaN : Number(text);
  if (!Number.isFinite(factor) || factor <= 0) {
    throw new Error(
      `--trace-scale must be a positive finite number (every rate of the trace × it, e.g. 0.5 halves the link), got "${value}"`,
    );
  }
  return factor;
}

/** The trace with every rate × `factor`; its period and the times of its changes stay. */
export function scaleTrace(trace: BandwidthTrace, factor: number): BandwidthTrace {
  if (!Number.isFinite(factor) || factor <= 0) throw new RangeError(`a trace scale must be a positive finite number, got ${factor}`);
  const steps = trace.steps.map((s) => ({ startSeconds: s.startSeconds, kbps: s.kbps * factor }));
  if (!trace.opportunitiesMs) return { ...trace, steps };
  const periodMs = Math.round(trace.periodSeconds * 1000);
  const opportunitiesMs: number[] = [];
  trace.opportunitiesMs.forEach((ms, i) => {
    // Rounded first: 0.3 × 10 must be 3 opportunities, not 2.999… → 2.
    const due = Math.floor(round9(factor * (i + 1))) - Math.floor(round9(factor * i));
    for (let k = 0; k < due; k++) opportunitiesMs.push(ms);
  });
  // mahimahi's period is its last line: kept even where the scaled trace has no opportunity at it (at most one extra per pass).
  if (opportunitiesMs.at(-1) !== periodMs) opportunitiesMs.push(periodMs);
  return { ...trace, steps, opportunitiesMs };
}

function round9(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}

/** How a scale is written after a family or trace name: `×0.4`. */
export function scaleSuffix(factor: number): string {
  return `×${Number(factor.toPrecision(6))}`;
}

/**
 * A lab trace scaled: its rates (and so its means) × `factor`, and its family and id marked with the
 * factor, so a report that merges scaled and unscaled runs of the same family keeps them apart.
 * A factor of 1 changes nothing.
 */
export function scaleLabTrace(t: LabTrace, factor: number): LabTrace {
  if (factor === 1) return t;
  const suffix = scaleSuffix(factor);
  return {
    ...t,
    id: `${t.family}${suffix}/${t.name}`,
    family: `${t.family}${suffix}`,
    meanMbps: t.meanMbps * factor,
    trace: scaleTrace(t.trace, factor),
    scale: factor,
  };
}

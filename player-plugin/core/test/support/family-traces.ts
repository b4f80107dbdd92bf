/**
 * Generated traces shaped like the lab's eight trace families (issue 33), and a volatile
 * LTE-like family like the issue's held-out trace. Seeded and deterministic: no trace data is
 * read or committed, only the few statistics of each family below (from the lab's trace set,
 * `../shared/traces`, computed over 1-s bins of each real trace and summarised per family as the
 * median over its traces):
 *
 * - the mean (Mbit/s): each family gets one trace per mean in `meansMbps`, spanning the family's
 *   range in that set's README; scaled so that the first `sessionSeconds` average exactly it;
 * - the spread, p10 / mean and p90 / mean of the 1-s bins (`p10`, `p90`: the targets the
 *   generator's parameters were fitted to; `familyTraceStats` measures what it generates, and a
 *   test holds it to them);
 * - the time scale of variation: the lag (s) at which the autocorrelation of the 1-s bins falls
 *   below 1/e (matched through `tauSeconds`, the correlation time of the log rate's
 *   Ornstein–Uhlenbeck walk, and the dips), and the source's resolution (`lineSeconds`: FCC 5 s,
 *   Oboe ~3 s, Puffer 2 s, the rest ~1 s);
 * - near-zero stretches (bins below 10% of the mean): their share of time and mean run length
 *   (the 5G logs' gaps between back-to-back file downloads, LTE in tunnels, Starlink's outages),
 *   generated as dips to `dipLevel` × the mean.
 *
 * Matched, real family (median of its traces) → generated (median of 30 seeds at the family's
 * lowest mean), p10/mean, p90/mean, autocorrelation time of the 1-s bins:
 *
 *   hsdpa      0.61 1.29  5 s → 0.63 1.35 6 s     fcc        0.92 1.10 4 s → 0.91 1.11 5 s
 *   oboe       0.64 1.33  7 s → 0.68 1.35 7 s     puffer     0.49 1.37 8 s → 0.59 1.37 9 s
 *   nyc-lte    0.20 1.68 10 s → 0.18 1.69 6 s     5g-driving 0.08 3.2  7 s → 0.06 2.57 6 s
 *   5g-static  0.05 2.4   3 s → 0.06 2.30 3 s     starlink   0.37 1.6  7 s → 0.33 1.62 6 s
 *
 * Near-zero time (bins below 10% of the mean; share, mean run): puffer 12% in one trace (~1.4 s
 * runs), nyc-lte ~5% (~2.5 s), 5g-driving ~14% (~2.5 s), 5g-static ~13% (~2 s), starlink ~4%
 * (~3 s, one of 13 s); the others none. Not matched: 5g-driving's p90 (its mean rides on rare
 * 5G peaks above 100 Mbit/s, beyond a log-normal walk's reach: p90/mean is at most 2.3 there).
 */
import { formatTrace, parseTrace } from '../../src/traces/index.js';
import type { NamedTrace } from './synthetic-traces.js';
import { seededRandom } from '@sammy/test-support';

export interface FamilyShape {
  family: string;
  /** One generated trace per mean, Mbit/s (the mean over the session's first `sessionSeconds`). */
  meansMbps: readonly number[];
  /** Targets: p10 and p90 of the 1-s bins over the mean (the real family's medians). */
  p10: number;
  p90: number;
  /** Correlation time of the log rate, seconds (set so the 1-s bins' autocorrelation time matches the family's). */
  tauSeconds: number;
  /** Standard deviation of the log rate (fitted to p10/p90). */
  sigma: number;
  /** Seconds between lines: the rate holds between them. */
  lineSeconds: number;
  /** Share of time in dips, their mean length (seconds) and level (× the walk's rate). */
  dipShare: number;
  dipSeconds: number;
  dipLevel: number;
}

/** The lab's top: 3.3 Mbit/s video + 128 kbit/s audio. */
export const LAB_TOP_MBPS = 3.428;

export const FAMILY_SHAPES: readonly FamilyShape[] = [
  {
    family: 'hsdpa',
    meansMbps: [3.0, 3.8, 4.8],
    p10: 0.61,
    p90: 1.29,
    tauSeconds: 6,
    sigma: 0.22,
    lineSeconds: 1,
    dipShare: 0.1,
    dipSeconds: 4,
    dipLevel: 0.5,
  },
  {
    family: 'fcc',
    meansMbps: [4.0, 4.4, 4.7],
    p10: 0.92,
    p90: 1.1,
    tauSeconds: 4,
    sigma: 0.08,
    lineSeconds: 5,
    dipShare: 0,
    dipSeconds: 0,
    dipLevel: 1,
  },
  {
    family: 'oboe',
    meansMbps: [4.9, 5.1, 5.4],
    p10: 0.64,
    p90: 1.33,
    tauSeconds: 9,
    sigma: 0.25,
    lineSeconds: 3,
    dipShare: 0.06,
    dipSeconds: 6,
    dipLevel: 0.55,
  },
  {
    family: 'puffer',
    meansMbps: [6.0, 7.9, 10.8],
    p10: 0.49,
    p90: 1.37,
    tauSeconds: 20,
    sigma: 0.25,
    lineSeconds: 2,
    dipShare: 0.08,
    dipSeconds: 3,
    dipLevel: 0.4,
  },
  {
    family: 'nyc-lte',
    meansMbps: [7.5, 10.5, 14.5],
    p10: 0.2,
    p90: 1.68,
    tauSeconds: 24,
    sigma: 0.4,
    lineSeconds: 1,
    dipShare: 0.12,
    dipSeconds: 3,
    dipLevel: 0.12,
  },
  {
    family: '5g-driving',
    meansMbps: [10.9, 22.3, 39.7],
    p10: 0.08,
    p90: 3.2,
    tauSeconds: 18,
    sigma: 1.45,
    lineSeconds: 1,
    dipShare: 0.12,
    dipSeconds: 2.5,
    dipLevel: 0.1,
  },
  {
    family: '5g-static',
    meansMbps: [49.4, 72, 103.8],
    p10: 0.05,
    p90: 2.4,
    tauSeconds: 5,
    sigma: 0.9,
    lineSeconds: 1,
    dipShare: 0.12,
    dipSeconds: 2,
    dipLevel: 0.05,
  },
  {
    family: 'starlink',
    meansMbps: [149.3, 157.8, 166.8],
    p10: 0.37,
    p90: 1.6,
    tauSeconds: 10,
    sigma: 0.4,
    lineSeconds: 1,
    dipShare: 0.1,
    dipSeconds: 3,
    dipLevel: 0.2,
  },
];

/** A trace's length, seconds (it loops after it); the means hold over the session's first seconds. */
const TRACE_SECONDS = 240;

/**
 * One trace of a family: the log rate an Ornstein–Uhlenbeck walk (one step per line), dips as
 * an on/off process with exponential lengths, scaled so the first `sessionSeconds` average
 * `meanMbps`; rates clamped to [minMbps, maxMbps] (then rescaled) when given. `[seconds Mbps]`
 * text, read back through the parser.
 */
export function shapedTrace(
  shape: Pick<FamilyShape, 'family' | 'tauSeconds' | 'sigma' | 'lineSeconds' | 'dipShare' | 'dipSeconds' | 'dipLevel'>,
  meanMbps: number,
  seed: number,
  options: { sessionSeconds: number; minMbps?: number; maxMbps?: number; name?: string },
): NamedTrace {
  const random = seededRandom(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const dt = shape.lineSeconds;
  const a = Math.exp(-dt / shape.tauSeconds);
  const kick = shape.sigma * Math.sqrt(1 - a * a);
  let x = shape.sigma * gaussian();
  // A dip starts with a probability that gives `dipShare` of the time in dips of `dipSeconds` on average.
  const dipStart = shape.dipShare > 0 ? dt / shape.dipSeconds / (1 / shape.dipShare - 1) : 0;
  let dipLeft = 0;
  const raw: number[] = [];
  for (let t = 0; t < TRACE_SECONDS; t += dt) {
    x = a * x + kick * gaussian();
    if (dipLeft <= 0 && random() < dipStart) dipLeft = -shape.dipSeconds * Math.log(1 - random());
    raw.push(Math.exp(x) * (dipLeft > 0 ? shape.dipLevel : 1));
    dipLeft -= dt;
  }
  const lines = Math.ceil(options.sessionSeconds / dt);
  let rates = raw;
  for (let pass = 0; pass < 20; pass++) {
    const scale = meanMbps / (rates.slice(0, lines).reduce((s, r) => s + r, 0) / lines);
    rates = rates.map((r) => Math.min(options.maxMbps ?? Infinity, Math.max(options.minMbps ?? 0, r * scale)));
  }
  const steps = rates.map((mbps, i) => ({ startSeconds: Math.round(i * dt * 1000) / 1000, kbps: mbps * 1000 }));
  const name = options.name ?? `${shape.family} ${meanMbps} Mb/s`;
  const trace = parseTrace(formatTrace('seconds-mbps', steps, TRACE_SECONDS), { source: name });
  return { family: shape.family, name, multiple: meanMbps / LAB_TOP_MBPS, trace };
}

/** Every family's traces: `perMean` per mean (the i-th mean's seeds i + 1, i + 11, i + 21 …). */
export function familyTraces(sessionSeconds: number, perMean = 1): NamedTrace[] {
  return FAMILY_SHAPES.flatMap((shape) =>
    shape.meansMbps.flatMap((mean, i) =>
      Array.from({ length: perMean }, (_, k) =>
        shapedTrace(shape, mean, i + 1 + 10 * k, { sessionSeconds, name: `${shape.family} ${mean} #${i + 1 + 10 * k}` }),
      ),
    ),
  );
}

/**
 * The held-out shape (not its data): LTE at ~4.2 Mbit/s over the session, swinging between
 * ~0.5 and ~10 Mbit/s within seconds (1-s lines, log rate σ 0.75 reverting in ~3 s, clamped to
 * [0.5, 10]): stretches of 6–7 Mbit/s and dips to 2–4 and below, about once a session each.
 */
export const VOLATILE_LTE: Pick<FamilyShape, 'family' | 'tauSeconds' | 'sigma' | 'lineSeconds' | 'dipShare' | 'dipSeconds' | 'dipLevel'> = {
  family: 'lte-volatile',
  tauSeconds: 3,
  sigma: 0.75,
  lineSeconds: 1,
  dipShare: 0,
  dipSeconds: 0,
  dipLevel: 1,
};

export function volatileLteTraces(sessionSeconds: number, seeds: readonly number[]): NamedTrace[] {
  return seeds.map((seed) =>
    shapedTrace(VOLATILE_LTE, 4.2, seed, { sessionSeconds, minMbps: 0.5, maxMbps: 10, name: `lte-volatile #${seed}` }),
  );
}

/** What the generator produced, in the terms of the targets: p10 / mean, p90 / mean of 1-s bins over one pass. */
export function familyTraceStats(trace: NamedTrace['trace']): { meanMbps: number; p10: number; p90: number } {
  const bins: number[] = [];
  const steps = trace.steps;
  for (let t = 0; t + 1 <= trace.periodSeconds; t++) {
    let kbits = 0;
    steps.forEach((s, i) => {
      const end = steps[i + 1]?.startSeconds ?? trace.periodSeconds;
      kbits += s.kbps * Math.max(0, Math.min(end, t + 1) - Math.max(s.startSeconds, t));
    });
    bins.push(kbits / 1000);
  }
  const sorted = [...bins].sort((x, y) => x - y);
  const q = (p: number) => sorted[Math.round(p * (sorted.length - 1))]!;
  const mean = bins.reduce((s, b) => s + b, 0) / bins.length;
  return { meanMbps: mean, p10: q(0.1) / mean, p90: q(0.9) / mean };
}

/**
 * Issue 39's real cellular links, as shapes (not their data): a volatile LTE link at 1.2× the top (mean 4.2
 * Mbit/s, second-scale swings between ~0.3 and ~7: 1-s lines, log rate σ 0.9 reverting in ~2 s, clamped to
 * [0.3, 7]) and a driving LTE link at 2× (mean 6.9 Mbit/s: σ 0.8 reverting in ~6 s, 3-s dips to a tenth
 * 10% of the time, clamped to [0.2, 20]).
 */
export const REAL_LTE: readonly (Pick<
  FamilyShape,
  'family' | 'tauSeconds' | 'sigma' | 'lineSeconds' | 'dipShare' | 'dipSeconds' | 'dipLevel'
> & { meanMbps: number; minMbps: number; maxMbps: number })[] = [
  {
    family: 'lte-1.2x',
    meanMbps: 4.2,
    minMbps: 0.3,
    maxMbps: 7,
    tauSeconds: 2,
    sigma: 0.9,
    lineSeconds: 1,
    dipShare: 0,
    dipSeconds: 0,
    dipLevel: 1,
  },
  {
    family: 'lte-driving',
    meanMbps: 6.9,
    minMbps: 0.2,
    maxMbps: 20,
    tauSeconds: 6,
    sigma: 0.8,
    lineSeconds: 1,
    dipShare: 0.1,
    dipSeconds: 3,
    dipLevel: 0.1,
  },
];

export function realLteTraces(sessionSeconds: number, seeds: readonly number[]): NamedTrace[] {
  return REAL_LTE.flatMap((shape) =>
    seeds.map((seed) =>
      shapedTrace(shape, shape.meanMbps, seed, {
        sessionSeconds,
        minMbps: shape.minMbps,
        maxMbps: shape.maxMbps,
        name: `${shape.family} #${seed}`,
      }),
    ),
  );
}

/**
 * Issue 33 in the trace simulation: the real session core against unpaced dash.js and dash.js's
 * own `rtp`, on generated traces shaped like the lab's eight trace families and a volatile
 * LTE-like family (support/family-traces.ts), with the lab's ladder (300–3300 kbps video +
 * 128 kbps audio, 4 s segments), 90 s sessions, at 30 s and 240 s buffer targets. Three arms:
 *
 * - **unpaced**: dash.js's ABR as modelled (support/dash-throughput-rule.ts), no rtp.
 * - **sammy**: Sammy with its defaults.
 * - **dash-rtp**: the same modelled dash.js with its own CMCD rtp honoured (5 × segment kbits /
 *   buffer seconds, `dashJsRtpKbps`): what a dash.js user gets for free.
 *
 * Targets (issue 33), per family and buffer target: Sammy's rebuffer ratio ≤ unpaced's, mean
 * bitrate ≥ 98% of it, switches ≤; the neighbour's queueing delay (support/qoe.ts: the lab's
 * 100 kB bottleneck queue in a fluid model, median and 95th percentile over the session) no
 * worse than dash-rtp's (+10%, or +5 ms where it is near zero); chunk throughput ≥ 60% lower than
 * unpaced on families whose mean exceeds 3× the top. And no trace, of a wider sweep, where Sammy
 * stalls longer than unpaced. A target missed is listed in KNOWN_MISSES with why and runs as
 * `it.fails`. The table is printed; README.md holds it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMETERS } from '../src/config.js';
import { TraceLink } from '../src/traces/index.js';
import { dashOwnRtpRule, dashThroughputRule } from './support/dash-throughput-rule.js';
import { FAMILY_SHAPES, LAB_TOP_MBPS, familyTraceStats, familyTraces, shapedTrace, volatileLteTraces } from './support/family-traces.js';
import { qoe } from './support/qoe.js';
import { sammyRule, simulateSession, type SimulatedRule, type SimulationConfig } from './support/session-simulator.js';
import type { NamedTrace } from './support/synthetic-traces.js';

const SESSION_SECONDS = 90;
const LAB_SIMULATION: Omit<SimulationConfig, 'linkKbps' | 'maxBufferSeconds'> = {
  videoLadderKbps: [300, 750, 1500, 2300, 3300],
  audioKbps: 128,
  segmentSeconds: 4,
  segments: 150,
  latencyMs: 40,
  wireOverhead: 0.04,
  startupBufferSeconds: 4,
  sessionSeconds: SESSION_SECONDS,
};
const BUFFER_TARGETS = [30, 240] as const;
type Target = (typeof BUFFER_TARGETS)[number];
const ARMS = ['unpaced', 'sammy', 'dash-rtp'] as const;
type Arm = (typeof ARMS)[number];
const RULES: Record<Arm, SimulatedRule> = { unpaced: dashThroughputRule(), sammy: sammyRule(DEFAULT_PARAMETERS), 'dash-rtp': dashOwnRtpRule() };


const configFor = (trace: NamedTrace, target: Target): SimulationConfig => ({ ...LAB_SIMULATION, linkKbps: 0, link: new TraceLink(trace.trace), maxBufferSeconds: target });
const run = (rule: SimulatedRule, trace: NamedTrace, target: Target) => {
  const config = configFor(trace, target);
  const result = simulateSession(rule, config);
  return { result, qoe: qoe(result, config) };
};

describe('the volatile LTE case (issue 33’s held-out shape: ~4.2 Mbit/s, 0.5–10 within seconds, 30 s target, 90 s sessions)', () => {
  const traces = volatileLteTraces(SESSION_SECONDS, Array.from({ length: 12 }, (_, i) => i + 1));
  // Reproduced on the defaults of the time (hold from a third of the full level, 5 s at a 30 s target):
  // Sammy held 2300 kbps at ~2800 kbps with a 6–8 s buffer through a 4–10 Mbit/s stretch, then stalled
  // 1.4 s in the dip that followed ("lte-volatile #7"; unpaced dash.js, fetching lower rungs, banked more).
  it.fails('Sammy stalls no longer than unpaced dash.js on any of twelve traces, at 30 s and 240 s targets — KNOWN MISS (issue 33): to fix', () => {
    for (const target of BUFFER_TARGETS) {
      for (const trace of traces) {
        const sammy = run(RULES.sammy, trace, target).result;
        const unpaced = run(RULES.unpaced, trace, target).result;
        expect(sammy.stallSeconds, `${trace.name}, ${target} s`).toBeLessThanOrEqual(unpaced.stallSeconds + 1e-6);
      }
    }
  });

  it('is shaped as the issue says: the session mean 4.2 Mbit/s, every trace within 0.5–10 and swinging by > 5 Mbit/s within 5 s', () => {
    for (const { trace } of traces) {
      const rates = trace.steps.slice(0, SESSION_SECONDS).map((s) => s.kbps / 1000);
      expect(rates.reduce((a, b) => a + b, 0) / rates.length).toBeCloseTo(4.2, 1);
      expect(Math.min(...rates)).toBeGreaterThanOrEqual(0.5 - 1e-9);
      expect(Math.max(...rates)).toBeLessThanOrEqual(10 + 1e-9);
      expect(rates.some((r, i) => i >= 5 && Math.abs(r - rates[i - 5]!) > 5)).toBe(true);
    }
  });
});

describe('generated family traces', () => {
  it('match each family’s spread: the median p10/mean within 0.12 and p90/mean within 20% of the real family’s (5g-driving’s p90: 25%), the session mean exactly', () => {
    for (const shape of FAMILY_SHAPES) {
      const stats = Array.from({ length: 15 }, (_, k) => familyTraceStats(shapedTrace(shape, shape.meansMbps[0]!, k + 1, { sessionSeconds: SESSION_SECONDS }).trace));
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      expect(Math.abs(median(stats.map((s) => s.p10)) - shape.p10), shape.family).toBeLessThanOrEqual(0.12);
      expect(Math.abs(median(stats.map((s) => s.p90)) / shape.p90 - 1), shape.family).toBeLessThanOrEqual(shape.family === '5g-driving' ? 0.25 : 0.2);
    }
    for (const trace of familyTraces(SESSION_SECONDS)) {
      const rates = trace.trace.steps.filter((s) => s.startSeconds < SESSION_SECONDS);
      const mean = rates.reduce((sum, s, i) => sum + s.kbps * ((rates[i + 1]?.startSeconds ?? SESSION_SECONDS) - s.startSeconds), 0) / SESSION_SECONDS / 1000;
      expect(mean / LAB_TOP_MBPS, trace.name).toBeCloseTo(trace.multiple, 2);
    }
  });

  it('are the same on every run (seeded)', () => {
    const a = familyTraces(SESSION_SECONDS)[5]!.trace.steps;
    const b = familyTraces(SESSION_SECONDS)[5]!.trace.steps;
    expect(b).toEqual(a);
  });
});

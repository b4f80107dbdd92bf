/**
 * Trace-driven closed loop (issue 14): the real session core on links that follow bandwidth
 * traces — each download's time integrates min(capacity, pace) over the trace, the buffer
 * drains in simulated time, rebuffering counted. Three arms on the same traces:
 *
 * - **unpaced**: dash.js's ABR, modelled as its ThroughputRule alone (EWMA estimate × 0.9; see
 *   support/dash-throughput-rule.ts — BOLA, InsufficientBufferRule and the abandon rule are not
 *   modelled), no rtp. The baseline.
 * - **sammy**: Sammy's full mode (its own rule and pace), defaults.
 * - **pace-only**: the same modelled dash.js rule picks; Sammy's pace-only session paces.
 *
 * Traces are small synthetic ones generated here (seeded), written in the public formats and
 * read back through the parser. Targets (issue 14) per family, each arm against unpaced:
 * rebuffer ratio not higher, mean bitrate ≥ 98%, no more switches; chunk throughput ≥ 50%
 * lower on traces whose mean exceeds 3× the top bitrate. A target the current algorithm misses
 * is listed in KNOWN_MISSES with why, and runs as `it.fails`: it is reported, not hidden, and
 * the suite says so when it starts to pass.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMETERS, type SammyParameters } from '../src/config.js';
import { resolveParameters } from '../src/policy/index.js';
import { meanKbps, TraceLink } from '../src/traces/index.js';
import { dashThroughputRule, modelledDashAbr } from './support/dash-throughput-rule.js';
import { qoe, type Qoe } from './support/qoe.js';
import { DEFAULT_SIMULATION, sammyRule, simulateSession, type SimulatedRule, type SimulationConfig } from './support/session-simulator.js';
import { cellularTrace, constantTrace, stepTrace, type NamedTrace } from './support/synthetic-traces.js';

const TOP = Math.max(...DEFAULT_SIMULATION.videoLadderKbps);
const ARMS = ['unpaced', 'sammy', 'pace-only'] as const;
type Arm = (typeof ARMS)[number];
const RULES: Record<Arm, SimulatedRule> = {
  unpaced: dashThroughputRule(),
  sammy: sammyRule(DEFAULT_PARAMETERS),
  'pace-only': dashThroughputRule(DEFAULT_PARAMETERS),
};

const configFor = (trace: NamedTrace): SimulationConfig => ({ ...DEFAULT_SIMULATION, linkKbps: 0, link: new TraceLink(trace.trace) });
const run = (rule: SimulatedRule, trace: NamedTrace) => {
  const config = configFor(trace);
  const result = simulateSession(rule, config);
  return { result, qoe: qoe(result, config) };
};

const TRACES: NamedTrace[] = [
  ...[1.5, 2, 3, 6, 12, 30].map((m) => constantTrace(TOP, m)),
  stepTrace(TOP, 6, 0.8),
  stepTrace(TOP, 0.8, 6),
  ...[1.5, 3, 6, 12].flatMap((m) => [1, 2, 3].map((seed) => cellularTrace(TOP, m, seed))),
];
const FAMILIES = [...new Set(TRACES.map((t) => t.family))];

const rows = TRACES.map((trace) => ({
  trace,
  meanMultiple: meanKbps(trace.trace) / TOP,
  arms: Object.fromEntries(ARMS.map((arm) => [arm, run(RULES[arm], trace).qoe])) as Record<Arm, Qoe>,
}));

/** A family's figures per arm: bitrate averaged over its traces, rebuffering and switches summed. */
function familyFigures(family: string, arm: Arm) {
  const qs = rows.filter((r) => r.trace.family === family).map((r) => r.arms[arm]);
  return {
    meanBitrateKbps: qs.reduce((s, q) => s + q.meanBitrateKbps, 0) / qs.length,
    rebufferRatio: qs.reduce((s, q) => s + q.rebufferRatio, 0) / qs.length,
    switches: qs.reduce((s, q) => s + q.switches, 0),
  };
}

// The table, one block per family (vitest prints console output with the test file).
{
  const cell = (q: Qoe) =>
    `${String(Math.round(q.meanBitrateKbps)).padStart(5)} ${(q.rebufferRatio * 100).toFixed(2).padStart(5)}% ${String(q.switches).padStart(3)} ${(q.chunkKbps / 1000).toFixed(1).padStart(6)}`;
  const header = `${'trace'.padEnd(20)} ${'mean'.padStart(6)} | ${ARMS.map((a) => `${a}: kbps rebuf sw chunkMb`.padEnd(29)).join(' | ')}`;
  const lines = ['Trace-driven simulation (90 × 4 s segments, ladder 300–6000 kbps + 128 kbps audio, 40 ms latency, 4% overhead)'];
  for (const family of FAMILIES) {
    lines.push('', `[${family}]`, header);
    for (const r of rows.filter((x) => x.trace.family === family)) {
      lines.push(`${r.trace.name.padEnd(20)} ${(r.meanMultiple.toFixed(2) + '×').padStart(6)} | ${ARMS.map((a) => cell(r.arms[a]).padEnd(29)).join(' | ')}`);
    }
    const f = ARMS.map((a) => familyFigures(family, a));
    lines.push(`${'family'.padEnd(20)} ${''.padStart(6)} | ${f.map((x) => `${String(Math.round(x.meanBitrateKbps)).padStart(5)} ${(x.rebufferRatio * 100).toFixed(2).padStart(5)}% ${String(x.switches).padStart(3)}`.padEnd(29)).join(' | ')}`);
  }
  console.log(lines.join('\n'));
}

/**
 * Targets the current algorithm misses, with why. `family/arm/target` or `trace/arm/chunk`.
 * Filled from the figures above; see the closing report of issue 14's plugin part.
 */
const KNOWN_MISSES: Record<string, string> = {
  // Sammy's Eq. 1 with look-ahead picks the top rung at a high buffer on a link between rungs
  // (0.8× top: 0.7 × 4.6 Mbit/s × (1 + 26/20) ≈ 7.4 Mbit/s ≥ 6), drains, drops to 3000, refills:
  // it alternates. Its mean bitrate is higher (+23% / +11%), its switches far more.
  'step-down/sammy/switches': 'Eq. 1 alternates 3000/6000 on a 0.8× link: 45 switches vs 2',
  'step-up/sammy/switches': 'Eq. 1 alternates 3000/6000 on a 0.8× link: 24 switches vs 2',
  // One stall each on "cell 1.5× #2" (0.06% unpaced, 0.11% pace-only): the pace trims the
  // capacity peaks from dash.js's samples, which changes which rungs it picks on a link at 1.5× top.
  'cellular/pace-only/rebuffer': 'cell 1.5× #2: one stall of 0.11% vs 0.06% unpaced (family mean 0.009% vs 0.005%)',
  // c1 = 2.8 × (top + audio) ≈ 2.86 × top at a full buffer: a link must exceed ~5.7× top (plus
  // the 40 ms latency every chunk pays) before the pace can halve chunk throughput.
  '6×/sammy/chunk': 'pace 2.86× top vs a 6× link: 49% lower, not 50%',
  '6×/pace-only/chunk': 'pace 2.86× top vs a 6× link: 49% lower, not 50%',
  '0.8×→6× at 120 s/sammy/chunk': 'the first 120 s on a 0.8× link cannot be paced below it',
  '0.8×→6× at 120 s/pace-only/chunk': 'the first 120 s on a 0.8× link cannot be paced below it',
};

const check = (key: string, name: string, body: () => void) => (KNOWN_MISSES[key] ? it.fails(`${name} — KNOWN MISS: ${KNOWN_MISSES[key]}`, body) : it(name, body));

describe('trace-driven closed loop: Sammy and pace-only against unpaced dash.js', () => {
  for (const family of FAMILIES) {
    for (const arm of ['sammy', 'pace-only'] as const) {
      const base = familyFigures(family, 'unpaced');
      const paced = familyFigures(family, arm);
      check(`${family}/${arm}/rebuffer`, `${family}: ${arm} rebuffers no more than unpaced`, () => {
        expect(paced.rebufferRatio).toBeLessThanOrEqual(base.rebufferRatio + 1e-9);
      });
      check(`${family}/${arm}/bitrate`, `${family}: ${arm} keeps ≥ 98% of the unpaced mean bitrate`, () => {
        expect(paced.meanBitrateKbps).toBeGreaterThanOrEqual(0.98 * base.meanBitrateKbps);
      });
      check(`${family}/${arm}/switches`, `${family}: ${arm} switches no more than unpaced`, () => {
        expect(paced.switches).toBeLessThanOrEqual(base.switches);
      });
    }
  }

  // "Exceeds 3×": the 3× traces (3.00× give or take mahimahi's packet rounding) are shown, not held to it.
  for (const r of rows.filter((x) => x.meanMultiple > 3.03)) {
    for (const arm of ['sammy', 'pace-only'] as const) {
      check(`${r.trace.name}/${arm}/chunk`, `${r.trace.name}: ${arm} cuts chunk throughput by ≥ 50%`, () => {
        expect(r.arms[arm].chunkKbps).toBeLessThanOrEqual(0.5 * r.arms.unpaced.chunkKbps);
      });
    }
  }

  it('reads the same link from either format: a constant trace as mahimahi gives the same session', () => {
    for (const m of [1.5, 3, 30]) {
      const viaLines = run(RULES.sammy, constantTrace(TOP, m, 'seconds-mbps')).qoe;
      const viaMahimahi = run(RULES.sammy, constantTrace(TOP, m, 'mahimahi')).qoe;
      expect(viaMahimahi.meanBitrateKbps).toBe(viaLines.meanBitrateKbps);
      expect(viaMahimahi.chunkKbps / viaLines.chunkKbps).toBeCloseTo(1, 2);
    }
  });
});

describe('no downward spiral on any accepted configuration, 1.2×–20× links', () => {
  const LINKS = [1.2, 1.5, 2, 3, 6, 12, 20].map((m) => constantTrace(TOP, m));
  /** The second half of a session: what a rule settles on. */
  const settled = (rule: SimulatedRule, trace: NamedTrace) => run(rule, trace).result.segments.slice(DEFAULT_SIMULATION.segments / 2);
  const unpacedSettled = new Map(LINKS.map((t) => [t.name, settled(RULES.unpaced, t)]));

  const configurations: Array<[string, Partial<SammyParameters>, 'sammy' | 'pace-only']> = [
    ['defaults (3.2 / 2.8)', {}, 'sammy'],
    ['least accepted with β = 0.7 (1.51)', { c0: 1.51, c1: 1.51 }, 'sammy'],
    ['public prototype (2.8 / 1.6, β = 0.9)', { c0: 2.8, c1: 1.6, beta: 0.9 }, 'sammy'],
    ['Netflix 2026 (3.5 flat)', { c0: 3.5, c1: 3.5 }, 'sammy'],
    ['defaults (3.2 / 2.8)', {}, 'pace-only'],
    ['least the modelled ThroughputRule accepts (1.17)', { c0: 1.17, c1: 1.17 }, 'pace-only'],
    ['least real dash.js accepts (1.51, InsufficientBufferRule)', { c0: 1.51, c1: 1.51 }, 'pace-only'],
  ];
  for (const [name, parameters, mode] of configurations) {
    it(`${mode}, ${name}: holds the rung unpaced dash.js holds`, () => {
      const rule = mode === 'sammy' ? sammyRule(parameters) : dashThroughputRule(parameters);
      for (const link of LINKS) {
        const segments = settled(rule, link);
        const floor = Math.min(...unpacedSettled.get(link.name)!.map((s) => s.bitrateKbps));
        expect(Math.min(...segments.map((s) => s.bitrateKbps)), `${link.name} link`).toBeGreaterThanOrEqual(floor);
      }
    });
  }

  it('the minimum is tight: just below it (refused) the modelled dash.js loses the top rung for good', () => {
    expect(() => resolveParameters({ c0: 1.1, c1: 1.1 }, DEFAULT_PARAMETERS, modelledDashAbr(DEFAULT_SIMULATION))).toThrow(/c0 must be at least 1.17/);
    const unchecked = dashThroughputRule({ c0: 1.1, c1: 1.1 }, (config) => ({ ...modelledDashAbr(config), requirements: [] }));
    for (const link of LINKS.filter((l) => l.multiple >= 2)) {
      expect(Math.max(...settled(unchecked, link).map((s) => s.bitrateKbps)), `${link.name} link`).toBeLessThan(TOP);
    }
  });
});

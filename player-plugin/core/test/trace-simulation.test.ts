/**
 * Trace-driven closed loop (issues 14 and 17): the real session core on links that follow
 * bandwidth traces — each download's time integrates min(capacity, pace) over the trace, the
 * buffer drains in simulated time, rebuffering counted. Four arms on the same traces:
 *
 * - **unpaced**: dash.js's ABR, modelled as its ThroughputRule (EWMA estimate × 0.9) and its
 *   InsufficientBufferRule (see support/dash-throughput-rule.ts — BOLA, used from a 12 s buffer,
 *   and the abandon rule are not modelled), no rtp. The baseline.
 * - **paper**: Sammy's full mode with `PRESETS.paper` (3.2 / 2.8 × top, Eq. 1 alone): the
 *   paper's algorithm as published.
 * - **bufferAware**: Sammy's full mode with its defaults, which are `PRESETS.bufferAware` (the
 *   lower pace of issue 17).
 * - **pace-only**: the same modelled dash.js rule picks; Sammy's pace-only session paces (its
 *   defaults: the paper's).
 *
 * Traces are small synthetic ones generated here (seeded), written in the public formats and
 * read back through the parser. Targets (issue 14) per family, each of paper, bufferAware and
 * pace-only against unpaced: rebuffer ratio not higher, mean bitrate ≥ 98%, no more switches;
 * chunk throughput ≥ 50% lower on traces whose mean exceeds 3× the top bitrate. Issue 17's, for
 * bufferAware (the defaults): on 1.5–3× links the pace below the link's capacity most of the playing transfer
 * time, mean bitrate ≥ 98% of unpaced, rebuffering not higher; at 12× chunk throughput ≥ 70%
 * lower with the bitrate within 1%; an up-switch after capacity rises; no spiral for any
 * accepted configuration. A target an arm misses is listed in KNOWN_MISSES with why, and runs
 * as `it.fails`: it is reported, not hidden, and the suite says so when it starts to pass.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMETERS, PAPER_PACE, PRESETS, type SammyParameters } from '../src/config.js';
import { resolveParameters, SammyConfigError } from '../src/policy/parameters.js';
import { meanKbps, TraceLink } from '../src/traces/index.js';
import { dashThroughputRule, modelledDashAbr } from './support/dash-throughput-rule.js';
import { qoe, type Qoe } from './support/qoe.js';
import { DEFAULT_SIMULATION, sammyRule, simulateSession, type SimulatedRule, type SimulationConfig } from './support/session-simulator.js';
import { cellularTrace, constantTrace, stepTrace, type NamedTrace } from './support/synthetic-traces.js';
import { targetChecks, viewerChecks } from './support/known-misses.js';

const TOP = Math.max(...DEFAULT_SIMULATION.videoLadderKbps);
const ARMS = ['unpaced', 'paper', 'bufferAware', 'pace-only'] as const;
type Arm = (typeof ARMS)[number];
/** The arms that pace, each held to issue 14's targets against unpaced. */
const PACED_ARMS = ['paper', 'bufferAware', 'pace-only'] as const;
const RULES: Record<Arm, SimulatedRule> = {
  unpaced: dashThroughputRule(),
  paper: sammyRule(PRESETS.paper),
  // The defaults (sammyRule adds no parameter of its own).
  bufferAware: sammyRule(DEFAULT_PARAMETERS),
  'pace-only': dashThroughputRule({}),
};

const configFor = (trace: NamedTrace): SimulationConfig => ({ ...DEFAULT_SIMULATION, linkKbps: 0, link: new TraceLink(trace.trace) });
const run = (rule: SimulatedRule, trace: NamedTrace) => {
  const config = configFor(trace);
  const result = simulateSession(rule, config);
  return { result, qoe: qoe(result, config) };
};

const TRACES: NamedTrace[] = [
  ...[1.2, 1.5, 2, 3, 6, 12, 30].map((m) => constantTrace(TOP, m)),
  stepTrace(TOP, 6, 0.8),
  stepTrace(TOP, 12, 1.5),
  stepTrace(TOP, 0.8, 6),
  stepTrace(TOP, 0.4, 3),
  ...[1.5, 2, 3, 6, 12].flatMap((m) => [1, 2, 3].map((seed) => cellularTrace(TOP, m, seed))),
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

/** Figures per arm over the traces of one group (a constant link, or one multiple of the cellular family). */
function groupFigures(group: typeof rows, arm: Arm) {
  const qs = group.map((r) => r.arms[arm]);
  const mean = (f: (q: Qoe) => number) => qs.reduce((s, q) => s + f(q), 0) / qs.length;
  return {
    meanBitrateKbps: mean((q) => q.meanBitrateKbps),
    rebufferRatio: mean((q) => q.rebufferRatio),
    switches: qs.reduce((s, q) => s + q.switches, 0),
    chunkKbps: mean((q) => q.chunkKbps),
    pacedBelowCapacity: mean((q) => q.pacedBelowCapacity),
  };
}

// The table, one block per family (vitest prints console output with the test file).
{
  const paced = (x: number) => (Number.isNaN(x) ? '   -' : `${Math.round(x * 100)}%`.padStart(4));
  const cell = (q: Qoe) =>
    `${String(Math.round(q.meanBitrateKbps)).padStart(5)} ${(q.rebufferRatio * 100).toFixed(2).padStart(5)}% ${String(q.switches).padStart(3)} ${(q.chunkKbps / 1000).toFixed(1).padStart(6)} ${paced(q.pacedBelowCapacity)}`;
  const header = `${'trace'.padEnd(20)} ${'mean'.padStart(6)} | ${ARMS.map((a) => `${a}: kbps rebuf sw chunkMb <cap`.padEnd(39)).join(' | ')}`;
  const lines = [
    'Trace-driven simulation (90 × 4 s segments, ladder 300–6000 kbps + 128 kbps audio, 40 ms latency, 4% overhead, 30 s buffer)',
    'paper: PRESETS.paper; bufferAware: the defaults (PRESETS.bufferAware)',
    '<cap: share of the playing phase’s transfer time with the pace below the link’s capacity',
  ];
  for (const family of FAMILIES) {
    lines.push('', `[${family}]`, header);
    for (const r of rows.filter((x) => x.trace.family === family)) {
      lines.push(
        `${r.trace.name.padEnd(20)} ${(r.meanMultiple.toFixed(2) + '×').padStart(6)} | ${ARMS.map((a) => cell(r.arms[a]).padEnd(39)).join(' | ')}`,
      );
    }
    const f = ARMS.map((a) => familyFigures(family, a));
    lines.push(
      `${'family'.padEnd(20)} ${''.padStart(6)} | ${f.map((x) => `${String(Math.round(x.meanBitrateKbps)).padStart(5)} ${(x.rebufferRatio * 100).toFixed(3).padStart(6)}% ${String(x.switches).padStart(3)}`.padEnd(39)).join(' | ')}`,
    );
  }
  console.log(lines.join('\n'));
}

/**
 * Targets an arm misses, with why. `family/arm/target`, `trace/arm/chunk`, or issue 17's
 * `group/bufferAware/target` (group: a constant link, or `cell N×`). Filled from the figures above.
 * The paper's algorithm misses what issue 17's design (the defaults) was made for: Sammy's own
 * rule alternating between two rungs on a link between them (the step traces), and chunk
 * throughput where its c1 2.8 sits near the link (6×, the 0.8×→6× step). bufferAware meets
 * those (held as passing tests for it below).
 */
const KNOWN_MISSES: Record<string, string> = {
  // The rule, not the pace (the link is below it; both Sammy arms do the same): at a 4 s
  // buffer β = 0.7 needs 6000 / 0.7 / 1.2 = 7.1 Mbit/s measured for the top rung, a 1.2× link
  // measures ~6.9 after headers and latency, so Sammy takes 3000 first and the top one segment later.
  // The paper's Eq. 1 with look-ahead picks the upper rung at a high buffer on a link between
  // rungs (0.8× top: 0.7 × 4.6 Mbit/s × (1 + 26/20) ≈ 7.4 Mbit/s ≥ 6), drains, drops to the
  // lower one, refills: it alternates (mean bitrate higher, +23% / +11%; switches far more).
  // bufferAware's stepUpFactor 1.1 stops it (2 and 3 switches, as unpaced).
  'step-down/paper/switches': 'Eq. 1 alone alternates 3000/6000 on the 0.8× link after the step: 46 switches vs 3 unpaced',
  'step-up/paper/switches': 'Eq. 1 alone alternates 3000/6000 on 0.8× and 1500/3000 on 0.4× before the step: 49 switches vs 5 unpaced',
  // c1 = 2.8 × (top + audio) ≈ 2.86 × top at a full buffer: a link must exceed ~5.7× top (plus
  // the 40 ms latency every chunk pays) before the pace can halve chunk throughput. bufferAware's
  // c1 1.25: −75% and −69%.
  '6×/paper/chunk': 'PRESETS.paper’s 2.8: pace 2.86× top vs a 6× link, 49% lower, not 50%',
  '0.8×→6× at 120 s/paper/chunk': 'the first 120 s on a 0.8× link cannot be paced below it, then the paper’s 2.86× top: 44% lower',
  // One stall each on "cell 1.5× #2" (0.06% unpaced, 0.11% pace-only): the pace trims the
  // capacity peaks from dash.js's samples, which changes which rungs it picks on a link at 1.5× top.
  'cellular/pace-only/rebuffer': 'cell 1.5× #2: one stall of 0.11% vs 0.06% unpaced (family mean 0.011% vs 0.005%)',
  // Pace-only keeps the paper's values (the defaults; its player's ABR has no look-ahead nor
  // hysteresis for a lower pace to rely on): c1 = 2.8 × (top + audio) ≈ 2.86 × top.
  '6×/pace-only/chunk': 'pace-only’s default (the paper’s preset): pace 2.86× top vs a 6× link, 49% lower, not 50%',
  '0.8×→6× at 120 s/pace-only/chunk': 'the first 120 s on a 0.8× link cannot be paced below it, then the paper’s 2.86× top: 46% lower',
  // Issue 17 targets.
  // A stall in the first playing segment: the rule jumps from 750 to 6000 at a 4 s buffer on one
  // sample, and the link dips during that download (the paper's preset stalls there too: 0.06%).
  'cell 2×/bufferAware/rebuffer':
    'cell 2× #2: a 0.2 s stall in the first playing segment (rule jumps to the top at a 4 s buffer, the link dips; the paper’s preset 0.06%): 0.05% vs 0.01% unpaced',
};

const check = targetChecks(KNOWN_MISSES);

describe('trace-driven closed loop: Sammy and pace-only against unpaced dash.js', () => {
  for (const family of FAMILIES) {
    for (const arm of PACED_ARMS) {
      const base = familyFigures(family, 'unpaced');
      const paced = familyFigures(family, arm);
      viewerChecks(check, `${family}/${arm}`, `${family}: ${arm}`, paced, base);
    }
  }

  // "Exceeds 3×": the 3× traces (3.00× give or take mahimahi's packet rounding) are shown, not held to it.
  for (const r of rows.filter((x) => x.meanMultiple > 3.03)) {
    for (const arm of PACED_ARMS) {
      check(`${r.trace.name}/${arm}/chunk`, `${r.trace.name}: ${arm} cuts chunk throughput by ≥ 50%`, () => {
        expect(r.arms[arm].chunkKbps).toBeLessThanOrEqual(0.5 * r.arms.unpaced.chunkKbps);
      });
    }
  }

  it('reads the same link from either format: a constant trace as mahimahi gives the same session', () => {
    for (const m of [1.5, 3, 30]) {
      const viaLines = run(RULES.bufferAware, constantTrace(TOP, m, 'seconds-mbps')).qoe;
      const viaMahimahi = run(RULES.bufferAware, constantTrace(TOP, m, 'mahimahi')).qoe;
      expect(viaMahimahi.meanBitrateKbps).toBe(viaLines.meanBitrateKbps);
      expect(viaMahimahi.chunkKbps / viaLines.chunkKbps).toBeCloseTo(1, 2);
    }
  });
});

describe('issue 17: a lower pace where the buffer allows it (the defaults, PRESETS.bufferAware, against unpaced dash.js)', () => {
  /** Constant links one by one, the cellular family one multiple at a time (its three seeds). */
  const groups = new Map<string, typeof rows>();
  for (const r of rows.filter((x) => x.trace.family === 'constant' || x.trace.family === 'cellular')) {
    const key = r.trace.family === 'constant' ? r.trace.name : `cell ${r.trace.multiple}×`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const [key, group] of groups) {
    const m = group[0]!.trace.multiple;
    const base = groupFigures(group, 'unpaced');
    const aware = groupFigures(group, 'bufferAware');
    if (m >= 1.5 && m <= 3) {
      check(
        `${key}/bufferAware/paced`,
        `${key}: paces below the link’s capacity most of the playing transfer time (the bottleneck idles)`,
        () => {
          expect(aware.pacedBelowCapacity).toBeGreaterThan(0.5);
        },
      );
      check(`${key}/bufferAware/bitrate`, `${key}: keeps ≥ 98% of the unpaced mean bitrate`, () => {
        expect(aware.meanBitrateKbps).toBeGreaterThanOrEqual(0.98 * base.meanBitrateKbps);
      });
      check(`${key}/bufferAware/rebuffer`, `${key}: rebuffers no more than unpaced`, () => {
        expect(aware.rebufferRatio).toBeLessThanOrEqual(base.rebufferRatio + 1e-9);
      });
    }
    if (m === 12) {
      check(`${key}/bufferAware/chunk70`, `${key}: cuts chunk throughput by ≥ 70% with the bitrate within 1%`, () => {
        expect(aware.chunkKbps).toBeLessThanOrEqual(0.3 * base.chunkKbps);
        expect(Math.abs(aware.meanBitrateKbps / base.meanBitrateKbps - 1)).toBeLessThanOrEqual(0.01);
      });
    }
  }

  it('paces lower than the paper’s (PRESETS.paper) on constant and cellular links of 3× and up (about half its chunk throughput), same bitrate', () => {
    for (const r of rows.filter((x) => x.meanMultiple >= 3 && (x.trace.family === 'constant' || x.trace.family === 'cellular'))) {
      expect(r.arms.bufferAware.chunkKbps, r.trace.name).toBeLessThan(0.65 * r.arms.paper.chunkKbps);
      expect(r.arms.bufferAware.meanBitrateKbps, r.trace.name).toBeGreaterThanOrEqual(0.99 * r.arms.paper.meanBitrateKbps);
    }
  });

  for (const [from, to, lower] of [
    [0.8, 6, 3000],
    [0.4, 3, 1500],
  ] as const) {
    it(`steps up after the link rises (${from}× → ${to}× at 120 s): holds ${lower} before without alternating, reaches the top within 30 s, holds it`, () => {
      const { result } = run(RULES.bufferAware, stepTrace(TOP, from, to));
      const before = result.segments.filter((s) => s.startedAtSeconds > 20 && s.startedAtSeconds + s.downloadSeconds < 120);
      expect(new Set(before.map((s) => s.bitrateKbps))).toEqual(new Set([lower]));
      // Below the top a probe rides on the next rung up at least every probeInterval segments, so
      // the link's rise shows in the samples; the held ones between keep what holds the rung.
      const probe = (s: (typeof before)[number]) => s.paceKbps! >= PRESETS.bufferAware.c0 * (2 * lower + DEFAULT_SIMULATION.audioKbps) - 50;
      const probes = before.flatMap((s, i) => (probe(s) ? [i] : []));
      expect(probes.every((i, k) => i - (probes[k - 1] ?? -1) <= PRESETS.bufferAware.probeInterval)).toBe(true);
      expect(before.length - 1 - probes.at(-1)!).toBeLessThan(PRESETS.bufferAware.probeInterval);
      expect(before.every((s) => s.paceKbps! >= 1.1 * (lower + DEFAULT_SIMULATION.audioKbps))).toBe(true);
      const firstTop = result.segments.find((s) => s.startedAtSeconds >= 120 && s.bitrateKbps === TOP);
      expect(firstTop!.startedAtSeconds).toBeLessThanOrEqual(150);
      expect(result.segments.filter((s) => s.index >= firstTop!.index).every((s) => s.bitrateKbps === TOP)).toBe(true);
      // …and once the buffer is deep again, the pace is c1 on the top, below the new link.
      expect(result.segments.at(-1)!.paceKbps).toBeLessThan(to * TOP);
    });
  }

  it('steps down once when the link falls below the top (6× → 0.8×), and stays', () => {
    const { result } = run(RULES.bufferAware, stepTrace(TOP, 6, 0.8));
    const rungs = result.segments.map((s) => s.bitrateKbps).filter((b, i, all) => i === 0 || b !== all[i - 1]);
    expect(rungs).toEqual([750, TOP, 3000]);
  });
});

describe('no downward spiral on any accepted configuration, 1.2×–20× links', () => {
  const LINKS = [1.2, 1.5, 2, 3, 6, 12, 20].map((m) => constantTrace(TOP, m));
  /** The second half of a session: what a rule settles on. */
  const settled = (rule: SimulatedRule, trace: NamedTrace) => run(rule, trace).result.segments.slice(DEFAULT_SIMULATION.segments / 2);
  const unpacedSettled = new Map(LINKS.map((t) => [t.name, settled(RULES.unpaced, t)]));

  const configurations: Array<[string, Partial<SammyParameters>, 'sammy' | 'pace-only']> = [
    ['PRESETS.paper (3.2 / 2.8)', PRESETS.paper, 'sammy'],
    ['defaults = PRESETS.bufferAware (4 / 1.25)', {}, 'sammy'],
    ['least accepted with β = 0.7 on bufferAware’s schedule (1.51 / 1.16)', { ...PRESETS.bufferAware, c0: 1.51, c1: 1.16 }, 'sammy'],
    ['public prototype (2.8 / 1.6, β = 0.9)', { ...PRESETS.paper, c0: 2.8, c1: 1.6, beta: 0.9 }, 'sammy'],
    ['Netflix 2026 (3.5 flat, on the paper’s top)', { ...PRESETS.paper, c0: 3.5, c1: 3.5 }, 'sammy'],
    ['pace-only’s defaults (the paper’s 3.2 / 2.8)', {}, 'pace-only'],
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
    expect(() =>
      resolveParameters({ c0: 1.1, c1: 1.1 }, { ...DEFAULT_PARAMETERS, ...PAPER_PACE }, modelledDashAbr(DEFAULT_SIMULATION)),
    ).toThrow(/c0 must be at least 1.17/);
    const unchecked = dashThroughputRule({ c0: 1.1, c1: 1.1 }, (config) => ({ ...modelledDashAbr(config), requirements: [] }));
    for (const link of LINKS.filter((l) => l.multiple >= 2)) {
      expect(Math.max(...settled(unchecked, link).map((s) => s.bitrateKbps)), `${link.name} link`).toBeLessThan(TOP);
    }
  });
});

describe('no spiral at the validation boundary: Sammy with the least c0 and c1 it accepts, over β, hysteresis, pace base and schedule', () => {
  const LINKS = [1.2, 1.5, 2, 3, 6, 12, 20].map((m) => constantTrace(TOP, m));
  const STEPS = [stepTrace(TOP, 6, 0.8), stepTrace(TOP, 12, 1.5), stepTrace(TOP, 0.8, 6), stepTrace(TOP, 0.4, 3)];
  /** The rung the last 30 segments never go below: what a rule settles on. */
  const floor = (rule: SimulatedRule, trace: NamedTrace) =>
    Math.min(
      ...run(rule, trace)
        .result.segments.slice(-30)
        .map((s) => s.bitrateKbps),
    );
  const least = (p: Partial<SammyParameters>, parameter: 'c0' | 'c1'): number => {
    try {
      resolveParameters({ ...p, [parameter]: 0.01 }, DEFAULT_PARAMETERS, undefined, DEFAULT_SIMULATION.bufferTargetSeconds);
    } catch (e) {
      if (e instanceof SammyConfigError && e.parameter === parameter) return e.shortfall!.minimum;
      throw e;
    }
    throw new Error(`${parameter} = 0.01 accepted`);
  };

  const sets: Partial<SammyParameters>[] = [];
  // The sets whose c0 is the least accepted (kept apart: an unknown key is refused as an option).
  const c0AtLeast = new WeakSet<object>();
  for (const beta of [0.5, 0.7, 0.9])
    for (const stepUpFactor of [0, 1.05, 1.2])
      for (const paceBase of ['top', 'next-rung'] as const)
        for (const fullBufferShare of [0.5, 1])
          for (const c0 of ['least', 4] as const) {
            const p = { beta, stepUpFactor, paceBase, fullBufferShare, c0: 4 };
            const set = { ...p, c0: c0 === 'least' ? least(p, 'c0') : c0 };
            if (c0 === 'least') c0AtLeast.add(set);
            sets.push(set);
          }

  it(`accepts the least c1 and refuses 0.01 below it, for ${sets.length} rule settings`, () => {
    for (const p of sets) {
      const c1 = least(p, 'c1');
      expect(() => resolveParameters({ ...p, c1 }, DEFAULT_PARAMETERS, undefined, 30), JSON.stringify(p)).not.toThrow();
      expect(() => resolveParameters({ ...p, c1: c1 - 0.01 }, DEFAULT_PARAMETERS, undefined, 30), JSON.stringify(p)).toThrow(
        SammyConfigError,
      );
      if (c0AtLeast.has(p))
        expect(() => resolveParameters({ ...p, c0: p.c0! - 0.01 }, DEFAULT_PARAMETERS, undefined, 30), JSON.stringify(p)).toThrow(
          SammyConfigError,
        );
    }
  });

  // The pace must cost no rung the rule itself settles on: the same settings unpaced are the floor.
  // (Against unpaced dash.js instead, a hysteresis of 1.2 cannot step up on a 1.2× link — it
  // measures ~1.15× after headers — paced or not: the rule's setting, not a spiral.)
  it('each holds, on 1.2×–20× links and steps down and up, the rung the same rule settles on unpaced', { timeout: 60_000 }, () => {
    let checked = 0;
    for (const p of sets) {
      const parameters = { ...p, c1: least(p, 'c1') };
      const paced = sammyRule(parameters);
      const unpaced = sammyRule(parameters, { unpaced: true });
      for (const trace of [...LINKS, ...STEPS]) {
        expect(floor(paced, trace), `${JSON.stringify(parameters)} on ${trace.name}`).toBeGreaterThanOrEqual(floor(unpaced, trace));
        checked++;
      }
    }
    expect(checked).toBe(72 * 11);
  });

  it(
    'with a hysteresis up to bufferAware’s (1.1) and any accepted c0/c1 at the boundary, also the rung unpaced dash.js settles on',
    { timeout: 60_000 },
    () => {
      for (const p of sets.filter((x) => x.stepUpFactor! <= 1.1)) {
        const rule = sammyRule({ ...p, c1: least(p, 'c1') });
        for (const trace of [...LINKS, ...STEPS]) {
          expect(floor(rule, trace), `${JSON.stringify(p)} on ${trace.name}`).toBeGreaterThanOrEqual(floor(RULES.unpaced, trace));
        }
      }
    },
  );
});

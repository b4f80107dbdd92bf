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
import { DEFAULT_PARAMETERS, PRESETS } from '../src/config.js';
import { TraceLink } from '../src/traces/index.js';
import { dashOwnRtpRule, dashThroughputRule } from './support/dash-throughput-rule.js';
import { FAMILY_SHAPES, LAB_TOP_MBPS, familyTraceStats, familyTraces, shapedTrace, volatileLteTraces } from './support/family-traces.js';
import { qoe, type Qoe } from './support/qoe.js';
import { median, sammyRule, simulateSession, type SimulatedRule, type SimulationConfig } from './support/session-simulator.js';
import type { NamedTrace } from './support/synthetic-traces.js';
import { targetChecks, viewerChecks } from './support/known-misses.js';

const SESSION_SECONDS = 90;
const LAB_SIMULATION: Omit<SimulationConfig, 'linkKbps' | 'bufferTargetSeconds'> = {
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
const ARMS = ['unpaced', 'sammy', 'dash-rtp', 'neighbour-first'] as const;
type Arm = (typeof ARMS)[number];
const RULES: Record<Arm, SimulatedRule> = {
  unpaced: dashThroughputRule(),
  sammy: sammyRule(DEFAULT_PARAMETERS),
  'dash-rtp': dashOwnRtpRule(),
  'neighbour-first': sammyRule({ ...PRESETS.neighbourFirst }),
};

/** The table's traces: two per mean of each family, twelve volatile LTE ones. */
const TRACES: NamedTrace[] = [...familyTraces(SESSION_SECONDS, 2), ...volatileLteTraces(SESSION_SECONDS, Array.from({ length: 12 }, (_, i) => i + 1))];
const FAMILIES = [...new Set(TRACES.map((t) => t.family))];

const configFor = (trace: NamedTrace, target: Target): SimulationConfig => ({ ...LAB_SIMULATION, linkKbps: 0, link: new TraceLink(trace.trace), bufferTargetSeconds: target });
const run = (rule: SimulatedRule, trace: NamedTrace, target: Target) => {
  const config = configFor(trace, target);
  const result = simulateSession(rule, config);
  return { result, qoe: qoe(result, config) };
};

const rows = BUFFER_TARGETS.flatMap((target) => TRACES.map((trace) => ({ target, trace, arms: Object.fromEntries(ARMS.map((a) => [a, run(RULES[a], trace, target).qoe])) as Record<Arm, Qoe> })));

/** A family's figures per arm and target: means over its traces, switches summed. */
function figures(family: string, target: Target, arm: Arm) {
  const qs = rows.filter((r) => r.trace.family === family && r.target === target).map((r) => r.arms[arm]);
  const mean = (f: (q: Qoe) => number) => qs.reduce((s, q) => s + f(q), 0) / qs.length;
  return {
    meanBitrateKbps: mean((q) => q.meanBitrateKbps),
    rebufferRatio: mean((q) => q.rebufferRatio),
    switches: qs.reduce((s, q) => s + q.switches, 0),
    chunkKbps: mean((q) => q.chunkKbps),
    saturatedShare: mean((q) => q.saturatedShare),
    queueP50Ms: mean((q) => q.queueP50Ms),
    queueP95Ms: mean((q) => q.queueP95Ms),
  };
}
const familyMeanMbps = (family: string) => {
  const ts = TRACES.filter((t) => t.family === family);
  return ts.reduce((s, t) => s + t.multiple, 0) / ts.length;
};

// The table (vitest prints console output with the test file).
{
  const cell = (f: ReturnType<typeof figures>) =>
    `${String(Math.round(f.meanBitrateKbps)).padStart(4)} ${(f.rebufferRatio * 100).toFixed(2).padStart(5)}% ${String(f.switches).padStart(3)} ${(f.chunkKbps / 1000).toFixed(1).padStart(5)} ${String(Math.round(f.saturatedShare * 100)).padStart(3)}% ${String(Math.round(f.queueP50Ms)).padStart(4)}/${String(Math.round(f.queueP95Ms)).padEnd(4)}`;
  const lines = [
    `Family simulation (issue 33): lab ladder 300–3300 kbps + 128 kbps audio, 4 s segments, ${SESSION_SECONDS} s sessions, 40 ms latency, 4% overhead`,
    'per arm: mean bitrate kbps, rebuffer ratio, switches (sum), chunk throughput Mbit/s, share of the session at the link’s capacity, neighbour queueing delay p50/p95 ms',
  ];
  for (const target of BUFFER_TARGETS) {
    lines.push('', `buffer target ${target} s`, `${'family'.padEnd(13)} ${'×top'.padStart(5)} | ${ARMS.map((a) => a.padEnd(38)).join(' | ')}`);
    for (const family of FAMILIES) lines.push(`${family.padEnd(13)} ${familyMeanMbps(family).toFixed(1).padStart(5)} | ${ARMS.map((a) => cell(figures(family, target, a)).padEnd(38)).join(' | ')}`);
  }
  console.log(lines.join('\n'));
}

/**
 * Targets Sammy misses, `family/target/what`, with why (filled from the figures above). The
 * neighbour's targets against dash.js's own rtp are missed where that rtp buys its queue with
 * bitrate: it paces each segment at 5 × its bits over the buffer, about 1× the rung at a 20 s
 * buffer, below it deeper, so its ThroughputRule steps down (20–35% less bitrate than unpaced);
 * Sammy keeps unpaced's bitrate, which on a link of 1–1.4× the top needs the link most of the time.
 */
const DIPS = 'the p95 is set by the dips (seconds at a few % of the mean): in one, a pace above the link queues; Sammy’s held floor keeps the rung fetched (1.05 × it + audio), dash.js’s rtp has stepped down';
const KNOWN_MISSES: Record<string, string> = {
  // hsdpa: 1.1× the top. Sammy keeps 2755 kbps (unpaced 2637, dash-rtp 2189): on a link this close to the
  // ladder the rung's floor sits above the link in each of its many dips.
  'hsdpa/30/queueP50Ms': 'p50 121 ms vs dash-rtp’s 16 ms (unpaced 211), at 2755 kbps vs its 2189: the rung’s floor above a link of 1.1× the top in its dips',
  'hsdpa/240/queueP50Ms': 'p50 121 ms vs dash-rtp’s 16 ms (unpaced 219), at 2755 kbps vs its 2189: the rung’s floor above a link of 1.1× the top in its dips',
  'hsdpa/30/queueP95Ms': `p95 382 vs 336 ms: ${DIPS}`,
  'hsdpa/240/queueP95Ms': `p95 382 vs 336 ms: ${DIPS}`,
  'puffer/30/queueP95Ms': `p95 220 vs 179 ms: ${DIPS}`,
  'puffer/240/queueP95Ms': `p95 219 vs 179 ms: ${DIPS}`,
  'nyc-lte/30/queueP95Ms': `p95 769 vs 658 ms: ${DIPS}`,
  'nyc-lte/240/queueP95Ms': `p95 769 vs 658 ms: ${DIPS}`,
  '5g-driving/30/queueP95Ms': `p95 1339 vs 621 ms: ${DIPS}`,
  '5g-driving/240/queueP95Ms': `p95 1338 vs 621 ms: ${DIPS}`,
  '5g-static/30/queueP95Ms': `p95 497 vs 173 ms: ${DIPS}`,
  '5g-static/240/queueP95Ms': `p95 497 vs 173 ms: ${DIPS}`,
  // The volatile LTE shape: below the hold level (10 s) most of the session, at the schedule's pace above the link.
  'lte-volatile/30/queueP50Ms': 'p50 179 ms vs dash-rtp’s 1 ms (unpaced 221), at 2553 kbps vs its 1604: the buffer stays below the hold level (10 s) most of the session, paced by the schedule above a link of 1.2× the top',
  'lte-volatile/240/queueP50Ms': 'p50 179 ms vs dash-rtp’s 1 ms (unpaced 238), at 2553 kbps vs its 1604: the buffer stays below the hold level (10 s) most of the session, paced by the schedule above a link of 1.2× the top',
  'lte-volatile/30/queueP95Ms': `p95 796 vs 551 ms: ${DIPS}`,
  'lte-volatile/240/queueP95Ms': `p95 796 vs 551 ms: ${DIPS}`,
  // c1 × (top + audio) = 1.25 × 3.43 = 4.3 Mbit/s is 40% of the family's 3.2× mean: no room for the fill phase.
  'nyc-lte/30/chunk': 'chunk throughput 4.4 vs 10.5 Mbit/s, −58%: the pace at a full buffer, 1.25 × the top, is 40% of a 3.2× link (at the 240 s target −65%: unpaced 12.5)',
  // A probe that meets a 2-s dip leaves the held pace at 4.1 Mbit/s on a 10–15 Mbit/s link until the next
  // probe (the held pace follows the link down at once, up only with a probe): the buffer is short of
  // unpaced's when a 15-s dip comes, and the rule steps down for a segment.
  'nyc-lte/240/bitrate': '3023 vs 3107 kbps (97.3%): on "nyc-lte 7.5 #1" a probe in a 2-s dip held the pace at 4.1 Mbit/s on a 10–15 Mbit/s link for four segments (up only with a probe), short of unpaced’s buffer at the next long dip',
  '5g-driving/240/switches': '14 vs 13: one more step on the way up after a dip (1500 → 2300 → 3300 where unpaced goes 1500 → 3300): a probe on the next rung measures the link only up to c0 × that rung',
};

const check = targetChecks(KNOWN_MISSES);

describe('issue 33: Sammy’s defaults against unpaced dash.js and dash.js’s own rtp, per generated family, at 30 s and 240 s buffer targets', () => {
  for (const target of BUFFER_TARGETS) {
    for (const family of FAMILIES) {
      const base = figures(family, target, 'unpaced');
      const rtp = figures(family, target, 'dash-rtp');
      const sammy = figures(family, target, 'sammy');
      const key = `${family}/${target}`;
      viewerChecks(check, key, `${family}, ${target} s:`, sammy, base);
      for (const p of ['queueP50Ms', 'queueP95Ms'] as const) {
        check(`${key}/${p}`, `${family}, ${target} s: the neighbour’s queueing delay ${p.slice(5, 8)} no worse than dash.js’s rtp (+10%, or +5 ms)`, () =>
          expect(sammy[p]).toBeLessThanOrEqual(Math.max(1.1 * rtp[p], rtp[p] + 5)),
        );
      }
      if (familyMeanMbps(family) > 3) {
        check(`${key}/chunk`, `${family}, ${target} s: cuts chunk throughput by ≥ 60% (mean ${familyMeanMbps(family).toFixed(1)}× the top)`, () =>
          expect(sammy.chunkKbps).toBeLessThanOrEqual(0.4 * base.chunkKbps),
        );
      }
    }
  }
});

/**
 * Issue 39: `PRESETS.neighbourFirst` must dominate dash.js's own rtp, per family and target: mean
 * bitrate ≥ its, the neighbour's queueing delay p50 ≤ its (+10%, or +2 ms), p95 ≤ its +10%, no
 * more rebuffering. A target missed is listed with why and runs as `it.fails`.
 */
const NF_DIPS = 'the dips (seconds at a few % of the mean): the pace, at a share of the link measured before the dip, is above the link in it, where dash.js-rtp has stepped down to a pace below it';
const NF_VOLATILE = 'a link swinging 0.5–10 Mbit/s within seconds: the share of the link measured by the last probes is above the link in the next dip; dash.js-rtp holds 1604 kbps (neighbourFirst 2113)';
const NEIGHBOUR_FIRST_MISSES: Record<string, string> = {
  'hsdpa/30/queueP95Ms': `p95 371 vs 336 ms: ${NF_DIPS}`,
  'puffer/30/queueP95Ms': `p95 213 vs 179 ms: ${NF_DIPS}`,
  '5g-driving/30/queueP95Ms': `p95 1109 vs 621 ms: ${NF_DIPS}`,
  '5g-static/30/queueP95Ms': `p95 480 vs 173 ms: ${NF_DIPS}`,
  'nyc-lte/30/rebuffer': '0.20% vs 0.18%: a probe in a long dip; the share of the link before it leaves the buffer short (provisional)',
  'lte-volatile/30/rebuffer': '0.59% vs 0.58%: at 2113 kbps where dash.js-rtp holds 1604, one dip deeper than the buffer (provisional)',
  'lte-volatile/30/queueP50Ms': `p50 54 vs 1 ms: ${NF_VOLATILE}`,
  'lte-volatile/30/queueP95Ms': `p95 758 vs 551 ms: ${NF_VOLATILE}`,
  'hsdpa/240/queueP95Ms': `p95 371 vs 336 ms: ${NF_DIPS}`,
  'puffer/240/queueP95Ms': `p95 213 vs 179 ms: ${NF_DIPS}`,
  '5g-driving/240/queueP95Ms': `p95 1109 vs 621 ms: ${NF_DIPS}`,
  '5g-static/240/queueP95Ms': `p95 480 vs 173 ms: ${NF_DIPS}`,
  'nyc-lte/240/rebuffer': '0.20% vs 0.18%: a probe in a long dip; the share of the link before it leaves the buffer short (provisional)',
  'lte-volatile/240/rebuffer': '0.59% vs 0.58%: at 2113 kbps where dash.js-rtp holds 1604, one dip deeper than the buffer (provisional)',
  'lte-volatile/240/queueP50Ms': `p50 54 vs 1 ms: ${NF_VOLATILE}`,
  'lte-volatile/240/queueP95Ms': `p95 758 vs 551 ms: ${NF_VOLATILE}`,
};
const checkNeighbourFirst = targetChecks(NEIGHBOUR_FIRST_MISSES);

describe('issue 39: PRESETS.neighbourFirst against dash.js’s own rtp, per generated family, at 30 s and 240 s buffer targets', () => {
  for (const target of BUFFER_TARGETS) {
    for (const family of FAMILIES) {
      const rtp = figures(family, target, 'dash-rtp');
      const first = figures(family, target, 'neighbour-first');
      const key = `${family}/${target}`;
      const label = `${family}, ${target} s: neighbourFirst`;
      checkNeighbourFirst(`${key}/bitrate`, `${label} keeps ≥ dash.js-rtp’s mean bitrate`, () => expect(first.meanBitrateKbps).toBeGreaterThanOrEqual(rtp.meanBitrateKbps));
      checkNeighbourFirst(`${key}/rebuffer`, `${label} rebuffers no more than dash.js-rtp`, () => expect(first.rebufferRatio).toBeLessThanOrEqual(rtp.rebufferRatio + 1e-9));
      checkNeighbourFirst(`${key}/queueP50Ms`, `${label}: the neighbour’s queueing delay p50 ≤ dash.js-rtp’s +10% (or +2 ms)`, () =>
        expect(first.queueP50Ms).toBeLessThanOrEqual(Math.max(1.1 * rtp.queueP50Ms, rtp.queueP50Ms + 2)),
      );
      checkNeighbourFirst(`${key}/queueP95Ms`, `${label}: the neighbour’s queueing delay p95 ≤ dash.js-rtp’s +10%`, () => expect(first.queueP95Ms).toBeLessThanOrEqual(1.1 * rtp.queueP95Ms + 1e-9));
    }
  }
});

/** A wider sweep for the viewer: eight seeds per mean of each family, forty volatile LTE traces. */
const SWEEP: NamedTrace[] = [...familyTraces(SESSION_SECONDS, 8), ...volatileLteTraces(SESSION_SECONDS, Array.from({ length: 40 }, (_, i) => i + 1))];
/** Traces on which Sammy stalls longer than unpaced, `name/target`, with why. */
const BANKED =
  'unpaced dash.js banks its whole 30 s target on the fast stretch before; Sammy’s buffer grows at 1.25 × the top over 15 s (19% a second) and meets';
const KNOWN_STALLS: Record<string, string> = {
  '5g-driving 10.9 #31/30': `8.2 s vs none: ${BANKED} two outages of 17 and 27 s below 1 Mbit/s with 18 s`,
  '5g-driving 10.9 #31/240': `8.2 s vs none: ${BANKED} two outages of 17 and 27 s below 1 Mbit/s with 18 s`,
  'lte-volatile #19/30': `1.2 s vs none: ${BANKED} two dips to 0.6–1.8 Mbit/s with 15 s, keeping 3300 kbps by Eq. 1 above the shallow level`,
  'lte-volatile #19/240': `1.2 s vs none: ${BANKED} two dips to 0.6–1.8 Mbit/s with 15 s, keeping 3300 kbps by Eq. 1 above the shallow level`,
};

describe('issue 33: no trace where Sammy stalls longer than unpaced dash.js', () => {
  for (const target of BUFFER_TARGETS) {
    const worse = SWEEP.flatMap((trace) => {
      const sammy = simulateSession(RULES.sammy, configFor(trace, target)).stallSeconds;
      const unpaced = simulateSession(RULES.unpaced, configFor(trace, target)).stallSeconds;
      return sammy > unpaced + 1e-6 ? [`${trace.name}/${target}: ${sammy.toFixed(2)} s vs ${unpaced.toFixed(2)} s`] : [];
    });
    const known = Object.entries(KNOWN_STALLS).filter(([k]) => k.endsWith(`/${target}`));
    // Exactly the known ones: a new one fails, and so does a known one that no longer stalls (update the list).
    it(`${target} s target, ${SWEEP.length} traces (${FAMILIES.length - 1} families × 3 means × 8 seeds, 40 volatile LTE)${known.length ? ` — KNOWN MISS: ${known.map(([k, why]) => `${k}: ${why}`).join('; ')}` : ''}`, () => {
      expect(worse.map((w) => w.split(':')[0])).toEqual(known.map(([k]) => k));
    });
  }
});

describe('the volatile LTE case (issue 33’s held-out shape: ~4.2 Mbit/s, 0.5–10 within seconds, 30 s target, 90 s sessions)', () => {
  const traces = volatileLteTraces(SESSION_SECONDS, Array.from({ length: 12 }, (_, i) => i + 1));
  // Reproduced on the defaults before issue 33 (hold from a third of the full level, 5 s at a 30 s
  // target): on "lte-volatile #7" Sammy held 2300 kbps at 2800 kbps with a 6–8 s buffer through a
  // 4–10 Mbit/s stretch and stalled 1.4 s in the dip after it, where unpaced dash.js did not stall;
  // on #3 its rule kept 3300 kbps at a 4 s buffer into a dip unpaced dash.js met at 2300.
  it('Sammy stalls no longer than unpaced dash.js on any of twelve traces, at 30 s and 240 s targets', () => {
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

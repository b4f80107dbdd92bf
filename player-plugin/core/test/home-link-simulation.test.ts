/**
 * Issue 40's home link in the simulation: a constant 40 Mbit/s link (40 ms RTT) shared with a game
 * that sends a constant 2 Mbit/s (what GCC settled on beside the film in the lab), a 4K-like film
 * (750…15 600 kbps + 128 kbps audio, 4 s segments) at a 240 s buffer target, 40 s sessions — the
 * lab's `--link home --media 4k --neighbours game`. The bottleneck is a drop-tail FIFO of 2 × BDP
 * (400 kB, 80 ms) or 300 ms (1.5 MB, `fifo-bloated`); the game's packets wait what the queue holds
 * (support/qoe.ts's fluid model). Arms: unpaced dash.js as modelled and Sammy's defaults.
 *
 * dash.js's fast switching is on for unpaced dash.js (its default) and off under Sammy (the dash.js adapter
 * turns it off while Sammy picks, issue 39). With it on, Sammy's step ups refetched the buffer, which drained
 * it back to 3–5 s twice in the first 17 s. Before issue 40's fill cap (policy/hold.ts) the defaults paced that
 * fill at the schedule, 47 and 63 Mbit/s for the probes (c0 × the next rung): above the link, which
 * paces nothing, so the FIFO stood full in front of the game (p95 84 and 316 ms, as beside the unpaced
 * film; over the first 20 s 84 and 300 ms). The issue's target: the game's delay p95 at least 50 %
 * lower than beside the unpaced film, the film's bitrate ≥ 98 %, no more rebuffering.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMETERS } from '../src/config.js';
import { dashThroughputRule } from './support/dash-throughput-rule.js';
import { targetChecks } from './support/known-misses.js';
import { neighbourDelaysMs, qoe } from './support/qoe.js';
import { sammyRule, simulateSession, type SimulatedRule, type SimulationConfig } from './support/session-simulator.js';

const GAME_KBPS = 2000;
const SESSION_SECONDS = 40;
const HOME: SimulationConfig = {
  linkKbps: 40_000 - GAME_KBPS,
  videoLadderKbps: [750, 1500, 3000, 4500, 7800, 11_600, 15_600],
  audioKbps: 128,
  segmentSeconds: 4,
  segments: 60,
  latencyMs: 40,
  wireOverhead: 0.04,
  bufferTargetSeconds: 240,
  startupBufferSeconds: 4,
  sessionSeconds: SESSION_SECONDS,
  fastSwitch: true,
};
/** The two FIFOs, kbit: 2 × BDP (40 Mbit/s × 40 ms × 2) and 300 ms at 40 Mbit/s. */
const QUEUES = { 'fifo-2bdp': 3200, 'fifo-bloated': 12_000 } as const;
const ARMS: Record<'unpaced' | 'sammy', SimulatedRule> = { unpaced: dashThroughputRule(), sammy: sammyRule(DEFAULT_PARAMETERS) };
/** dash.js's fast switching per arm: on for unpaced dash.js (its default), off under Sammy (what the dash.js adapter sets, issue 39). */
const FAST_SWITCH: Record<keyof typeof ARMS, boolean> = { unpaced: true, sammy: false };

const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const results = Object.fromEntries(
  Object.entries(ARMS).map(([arm, rule]) => {
    const config = { ...HOME, fastSwitch: FAST_SWITCH[arm as keyof typeof ARMS] };
    const result = simulateSession(rule, config);
    const q = qoe(result, config);
    const queues = Object.fromEntries(
      Object.entries(QUEUES).map(([name, kbits]) => {
        const all = neighbourDelaysMs(result, HOME, kbits);
        const fill = neighbourDelaysMs({ ...result, sessionSeconds: SESSION_SECONDS / 2 }, HOME, kbits);
        return [
          name,
          { p50: percentile(all, 0.5), p95: percentile(all, 0.95), fillP50: percentile(fill, 0.5), fillP95: percentile(fill, 0.95) },
        ];
      }),
    ) as Record<keyof typeof QUEUES, { p50: number; p95: number; fillP50: number; fillP95: number }>;
    return [arm, { result, qoe: q, queues }];
  }),
) as Record<
  keyof typeof ARMS,
  {
    result: ReturnType<typeof simulateSession>;
    qoe: ReturnType<typeof qoe>;
    queues: Record<keyof typeof QUEUES, { p50: number; p95: number; fillP50: number; fillP95: number }>;
  }
>;

console.log(
  [
    `Home link (issue 40): 40 Mbit/s, 40 ms, a ${GAME_KBPS / 1000} Mbit/s game, the 4K-like ladder, 240 s target, ${SESSION_SECONDS} s; per arm: film mean bitrate kbps, stall s, the game's queueing delay p50/p95 ms over the session and over its first ${SESSION_SECONDS / 2} s`,
    ...Object.entries(results).map(
      ([arm, r]) =>
        `${arm.padEnd(8)} ${Math.round(r.qoe.meanBitrateKbps)} ${r.result.stallSeconds.toFixed(1)} s | ${Object.entries(r.queues)
          .map(
            ([name, d]) =>
              `${name} ${Math.round(d.p50)}/${Math.round(d.p95)} (first half ${Math.round(d.fillP50)}/${Math.round(d.fillP95)})`,
          )
          .join(' | ')}`,
    ),
    `sammy's requests (start s, buffer s, rung kbps, pace kbps): ${results.sammy.result.segments.map((s) => `${s.startedAtSeconds.toFixed(1)}:${s.bufferBeforeSeconds.toFixed(0)}:${s.bitrateKbps}:${s.paceKbps ?? '-'}`).join(' ')}`,
  ].join('\n'),
);

/** Issue 39's change: with dash.js's fast switching off (the adapter's setting) Sammy's first playing request is the top rung, at the schedule's pace. */
const FIRST_FILL =
  'with dash.js’s fast switching off (the dash.js adapter’s setting since issue 39) Sammy steps to 15 600 kbps at its first playing request (4 s of buffer) instead of climbing through refetches paced at the link, and that request goes at the schedule’s 51.4 Mbit/s on the 38 Mbit/s link for 1.8 s: the fill cap waits for two agreeing measurements of the link and has one (the first 750 kbps segment, 25 Mbit/s, its request’s latency a large part of it)';
const check = targetChecks({
  'fifo-2bdp/fill': `first 20 s p95 84 vs 84 ms: ${FIRST_FILL}`,
  'fifo-bloated/session': `p95 212 vs 316 ms: ${FIRST_FILL}`,
  'fifo-bloated/fill': `first 20 s p95 316 vs 316 ms: ${FIRST_FILL}`,
});

describe('issue 40: the home link, a 4K-like film beside a game (simulation)', () => {
  for (const name of Object.keys(QUEUES) as (keyof typeof QUEUES)[]) {
    check(`${name}/session`, `${name}: Sammy's defaults halve the game's queueing delay p95 against the unpaced film`, () =>
      expect(results.sammy.queues[name].p95).toBeLessThanOrEqual(0.5 * results.unpaced.queues[name].p95),
    );
    check(`${name}/fill`, `${name}: and over the first 20 s, the fill`, () =>
      expect(results.sammy.queues[name].fillP95).toBeLessThanOrEqual(0.5 * results.unpaced.queues[name].fillP95),
    );
  }
  // Met since the simulation counts what is played (a refetch replaces the rest of its segment): 14 115 vs 8099 kbps
  // (13 222 with fast switching on). It was a known miss, 9775 vs 11 825, while refetched downloads counted as segments
  // played. The unpaced figure is the modelled dash.js, which under fast switching steps up and back down every few
  // segments (the lab's dash.js, with BOLA, does not); the lab's own figures on this link: 13 850 vs 13 142 kbps.
  it('the film keeps ≥ 98 % of the unpaced bitrate', () =>
    expect(results.sammy.qoe.meanBitrateKbps).toBeGreaterThanOrEqual(0.98 * results.unpaced.qoe.meanBitrateKbps));
  it('the film stalls no more than unpaced', () =>
    expect(results.sammy.result.stallSeconds).toBeLessThanOrEqual(results.unpaced.result.stallSeconds));
});

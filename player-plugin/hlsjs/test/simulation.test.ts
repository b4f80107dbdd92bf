/**
 * Closed loop: the session core as this adapter drives it, against hls.js's ABR as its sources
 * decide (support/hls-abr-model.ts: its level choice, first pick, abandon rule and its own EWMA
 * estimator class), on links of 2×, 4× and 20× the top variant. With the defaults both modes hold
 * the top rung; no configuration the validation accepts can spiral (or be abandoned into a lower
 * rung), and a pace below hls.js's needs does get stuck — so the check is not vacuous.
 */
import { describe, expect, it } from 'vitest';
import { SammyConfigError } from 'sammy-pacing-core';
import { DEFAULT_SCENARIO, HLS_DEFAULTS, simulate, type HlsAbrConfig, type Outcome } from './support/hls-abr-model.js';

const TOP = DEFAULT_SCENARIO.ladderKbps.length - 1;
const TOP_KBPS = DEFAULT_SCENARIO.ladderKbps[TOP]!;
/** The link dips to 0.6× the top variant for eight requests mid-session: a level drop, then a step back up. */
const dip = (n: number) => (n >= 20 && n < 28 ? TOP_KBPS * 0.6 : undefined);
const playingSegments = (o: Outcome) => o.segments.filter((s) => s.phase === 'playing');

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('defaults hold the top rung', () => {
  for (const mode of ['sammy', 'pace-only'] as const) {
    for (const multiple of [2, 4, 20]) {
      it(`${mode}, link ${multiple}× the top variant: no stall, every playing-phase segment paced and at the top`, () => {
        const outcome = simulate(mode, { ...DEFAULT_SCENARIO, linkKbps: TOP_KBPS * multiple });
        expect(outcome.stalls).toBe(0);
        const playing = playingSegments(outcome);
        expect(playing.length).toBeGreaterThan(50);
        expect(playing.every((s) => s.rtpKbps !== undefined)).toBe(true);
        expect(playing.filter((s) => s.level !== TOP)).toEqual([]);
        expect(outcome.segments.some((s) => s.abandoned)).toBe(false);
        // At the top rung the pace is a multiple of the top BANDWIDTH (audio included): never below it.
        for (const s of playing) expect(s.rtpKbps!).toBeGreaterThan(TOP_KBPS);
      });
    }
  }
});

describe('no accepted configuration spirals', () => {
  it('pace-only: any c0/c1 and hls.js factors the validation accepts reach the top rung, and return to it after a dip, when only the pace limits', () => {
    const next = random(15);
    let accepted = 0;
    let rejected = 0;
    const failures: string[] = [];
    for (let i = 0; i < 400; i++) {
      const c0 = 0.8 + next() * 3.7;
      const c1 = 0.8 + next() * 3.7;
      const hls: HlsAbrConfig = { ...HLS_DEFAULTS, abrBandWidthFactor: 0.6 + next() * 0.4, abrBandWidthUpFactor: 0.4 + next() * 0.6 };
      const segmentSeconds = next() < 0.5 ? 2 : 4;
      let outcome: Outcome;
      try {
        outcome = simulate(
          'pace-only',
          { ...DEFAULT_SCENARIO, segmentSeconds, segments: 140, linkKbps: TOP_KBPS * 50, linkAt: dip },
          { c0, c1 },
          hls,
        );
      } catch (error) {
        expect(error).toBeInstanceOf(SammyConfigError);
        rejected++;
        continue;
      }
      accepted++;
      // hls.js's EWMA weighs a sample by its download time: the dip's slow samples outweigh many
      // short paced ones, so stepping back up takes a few dozen segments — but it comes.
      const tail = outcome.segments.slice(-20);
      const dipped = outcome.segments.slice(20, 40).some((s) => s.level < TOP);
      if (
        !dipped ||
        tail.some((s) => s.level !== TOP) ||
        outcome.segments.some((s) => s.abandoned && s.rtpKbps !== undefined && s.bufferSeconds > 2 * segmentSeconds)
      ) {
        failures.push(
          `c0 ${c0.toFixed(2)} c1 ${c1.toFixed(2)} factor ${hls.abrBandWidthFactor.toFixed(2)} up ${hls.abrBandWidthUpFactor.toFixed(2)} d ${segmentSeconds}`,
        );
      }
    }
    expect(failures).toEqual([]);
    expect(accepted).toBeGreaterThan(50);
    expect(rejected).toBeGreaterThan(50);
  });

  it('Sammy’s own mode: any accepted c0/c1/beta returns to the top rung after a dip when only the pace limits', () => {
    const next = random(16);
    let accepted = 0;
    const failures: string[] = [];
    for (let i = 0; i < 300; i++) {
      const parameters = { c0: 0.8 + next() * 3.7, c1: 0.8 + next() * 3.7, beta: 0.4 + next() * 0.6 };
      let outcome: Outcome;
      try {
        outcome = simulate('sammy', { ...DEFAULT_SCENARIO, segments: 140, linkKbps: TOP_KBPS * 50, linkAt: dip }, parameters);
      } catch (error) {
        expect(error).toBeInstanceOf(SammyConfigError);
        continue;
      }
      accepted++;
      if (outcome.segments.slice(-20).some((s) => s.level !== TOP)) {
        failures.push(JSON.stringify(parameters));
      }
    }
    expect(failures).toEqual([]);
    expect(accepted).toBeGreaterThan(50);
  });

  it('a pace below hls.js’s step-up need (1.3×, refused) never returns to the top rung after a dip: the check has teeth', () => {
    expect(() => simulate('pace-only', { ...DEFAULT_SCENARIO, linkKbps: TOP_KBPS * 50 }, { c0: 1.3, c1: 1.3 })).toThrow(SammyConfigError);
    // The same session with the check bypassed: Sammy's mode validates Sammy's rule (β 0.99), hls.js's ABR picks.
    const stuck = simulateUnchecked(1.3);
    expect(stuck.segments.slice(10, 20).every((s) => s.level === TOP)).toBe(true);
    expect(stuck.segments.slice(28).every((s) => s.level < TOP)).toBe(true);
    expect(stuck.stalls).toBe(0);
  });
});

/** hls.js's ABR behind a 1.3× pace, with the validation out of the way (pace-only refuses it). */
function simulateUnchecked(multiplier: number): Outcome {
  const permissive: HlsAbrConfig = { ...HLS_DEFAULTS };
  // A pace the abandon rule never sees (the factors are hls.js's), checked against nothing: model-only.
  return simulate(
    'pace-only',
    { ...DEFAULT_SCENARIO, segments: 140, linkKbps: TOP_KBPS * 50, linkAt: dip },
    { c0: multiplier, c1: multiplier },
    permissive,
    { skipValidation: true },
  );
}

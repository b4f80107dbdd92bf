import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMETERS } from '../src/config.js';
import {
  bufferFullness,
  decidePace,
  minimumMultiplier,
  minimumThroughputKbps,
  nextPlaybackState,
  INITIAL_PLAYBACK_STATE,
  paceShortfalls,
  sammyRuleRequirement,
  sammyRuleShortfalls,
  type PlaybackEvent,
  type PlaybackState,
  paceMultiplier,
  paceRateKbps,
  paceRateRtp,
  resolveParameters,
  SammyConfigError,
  selectBitrateKbps,
  sustainableBitrateKbps,
  harmonicMeanKbps,
  appendBounded,
} from '../src/policy/index.js';

const LADDER = [300, 750, 1500, 3000, 6000];

describe('pace-rate policy', () => {
  it('uses the production defaults: c0 = 3.2 at an empty buffer, c1 = 2.8 at a full one', () => {
    expect(DEFAULT_PARAMETERS.c0).toBe(3.2);
    expect(DEFAULT_PARAMETERS.c1).toBe(2.8);
  });

  it('interpolates multiplier = c1·B + c0·(1 − B) on the buffer fullness', () => {
    expect(paceMultiplier(0, 3.2, 2.8)).toBeCloseTo(3.2);
    expect(paceMultiplier(1, 3.2, 2.8)).toBeCloseTo(2.8);
    expect(paceMultiplier(0.5, 3.2, 2.8)).toBeCloseTo(3.0);
    expect(paceMultiplier(0.25, 3.2, 2.8)).toBeCloseTo(2.8 * 0.25 + 3.2 * 0.75);
  });

  it('clamps B = buffer / maxBuffer into [0, 1]', () => {
    expect(bufferFullness(15, 30)).toBe(0.5);
    expect(bufferFullness(45, 30)).toBe(1);
    expect(bufferFullness(-1, 30)).toBe(0);
    expect(bufferFullness(NaN, 30)).toBe(0);
    expect(bufferFullness(10, 0)).toBe(0);
  });

  it('scales the highest bitrate of the ladder', () => {
    const input = { maxBufferSeconds: 30, paceBaseKbps: 6000, c0: 3.2, c1: 2.8 };
    expect(paceRateKbps({ ...input, bufferLevelSeconds: 0 })).toBeCloseTo(19_200);
    expect(paceRateKbps({ ...input, bufferLevelSeconds: 30 })).toBeCloseTo(16_800);
    expect(paceRateKbps({ ...input, bufferLevelSeconds: 15 })).toBeCloseTo(18_000);
  });

  it('rounds rtp to the nearest 100 kbps (CTA-5004)', () => {
    expect(paceRateRtp({ bufferLevelSeconds: 7, maxBufferSeconds: 30, paceBaseKbps: 3333, c0: 3.2, c1: 2.8 })).toBe(10_400);
  });

  it('sends no rtp in the initial phase', () => {
    const input = { bufferLevelSeconds: 2, maxBufferSeconds: 30, paceBaseKbps: 6128, parameters: DEFAULT_PARAMETERS };
    expect(decidePace({ ...input, phase: 'initial' })).toBeUndefined();
    // (2.8·2/30 + 3.2·28/30) × 6128 = 19 446 → 19 400.
    expect(decidePace({ ...input, phase: 'playing' })).toBe(19_400);
  });
});

describe('bitrate policy (Section 4.2, Eq. 1)', () => {
  it('with β = 0.5 and an empty buffer, the top rung needs twice its bitrate (Fig. 2)', () => {
    expect(minimumThroughputKbps(6000, 0, 0.5, 20)).toBe(12_000);
    expect(selectBitrateKbps({ bitratesKbps: LADDER, throughputKbps: 12_000, bufferLevelSeconds: 0, beta: 0.5, lookaheadSeconds: 20 })).toBe(6000);
    expect(selectBitrateKbps({ bitratesKbps: LADDER, throughputKbps: 11_999, bufferLevelSeconds: 0, beta: 0.5, lookaheadSeconds: 20 })).toBe(3000);
  });

  it('needs less throughput as the buffer grows: x ≥ r/β/(1 + B0/D)', () => {
    // B0 = D halves the requirement.
    expect(minimumThroughputKbps(6000, 20, 0.5, 20)).toBe(6000);
    expect(sustainableBitrateKbps(6000, 20, 0.5, 20)).toBe(6000);
    expect(selectBitrateKbps({ bitratesKbps: LADDER, throughputKbps: 6000, bufferLevelSeconds: 20, beta: 0.5, lookaheadSeconds: 20 })).toBe(6000);
  });

  it('keeps the top rung when measured throughput equals the pace rate', () => {
    const { c0, c1, beta, lookaheadSeconds, overhead } = DEFAULT_PARAMETERS;
    for (const buffer of [0, 5, 15, 30, 60]) {
      const pace = paceRateKbps({ bufferLevelSeconds: buffer, maxBufferSeconds: 30, paceBaseKbps: 6000, c0, c1 });
      const measured = pace * (1 - overhead);
      expect(selectBitrateKbps({ bitratesKbps: LADDER, throughputKbps: measured, bufferLevelSeconds: buffer, beta, lookaheadSeconds })).toBe(6000);
    }
  });

  it('picks the lowest rung with no estimate, and ignores an unsorted ladder order', () => {
    expect(selectBitrateKbps({ bitratesKbps: [6000, 300, 1500], throughputKbps: undefined, bufferLevelSeconds: 0, beta: 0.7, lookaheadSeconds: 20 })).toBe(300);
    expect(selectBitrateKbps({ bitratesKbps: [6000, 300, 1500], throughputKbps: 2500, bufferLevelSeconds: 0, beta: 0.7, lookaheadSeconds: 20 })).toBe(1500);
    expect(() => selectBitrateKbps({ bitratesKbps: [], throughputKbps: 1, bufferLevelSeconds: 0, beta: 0.7, lookaheadSeconds: 20 })).toThrow(/no bitrate/);
  });
});

describe('configuration validation', () => {
  it('accepts the defaults and the paper’s prototype (2.8 / 1.6 with β = 0.9)', () => {
    expect(resolveParameters()).toEqual(DEFAULT_PARAMETERS);
    expect(resolveParameters({ c0: 2.8, c1: 1.6, beta: 0.9 }).c1).toBe(1.6);
  });

  it('rejects c1 below 1/(β(1 − overhead)), naming the parameter and the minimum', () => {
    const min = minimumMultiplier(0.7, 0.05);
    expect(min).toBeCloseTo(1.5038, 3);
    try {
      resolveParameters({ c1: 1.4 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SammyConfigError);
      expect((e as SammyConfigError).parameter).toBe('c1');
      expect((e as Error).message).toMatch(/c1 must be at least 1\.51/);
    }
  });

  it('rejects c0 the same way, and a β that makes the defaults insufficient', () => {
    expect(() => resolveParameters({ c0: 1.2 })).toThrow(/c0 must be at least/);
    expect(() => resolveParameters({ beta: 0.3 })).toThrow(/c0 = 3.2 cannot sustain the top rung with beta = 0.3/);
  });

  it('checks Sammy’s own rule exactly as the general check of its requirement would (full mode bundles only the special case)', () => {
    const sets = [
      { beta: 0.7, overhead: 0.05, c0: 3.2, c1: 2.8 },
      { beta: 0.7, overhead: 0.05, c0: 1.2, c1: 1.4 },
      { beta: 0.3, overhead: 0.05, c0: 3.2, c1: 2.8 },
      { beta: 0.9, overhead: 0, c0: 1.11, c1: 1.12 },
      { beta: 0.7, overhead: 0.05, c0: 1.5037593984962405, c1: 1.51 },
    ];
    for (const p of sets) expect(sammyRuleShortfalls(p), JSON.stringify(p)).toEqual(paceShortfalls(p, [sammyRuleRequirement(p.beta)], Infinity));
    expect(sammyRuleShortfalls(sets[1]!).map((s) => [s.parameter, s.minimum])).toEqual([['c0', 1.51], ['c1', 1.51]]);
  });

  it('rejects values that are not numbers in range', () => {
    for (const bad of [{ beta: 0 }, { beta: 1.5 }, { c0: NaN }, { c1: -1 }, { overhead: 0.9 }, { lookaheadSeconds: 0 }] as const) {
      expect(() => resolveParameters(bad)).toThrow(SammyConfigError);
    }
    expect(() => resolveParameters({ c0: '3' as unknown as number })).toThrow(/c0 must be a number/);
  });

  it('keeps the base set when an update is invalid (resolve returns a new frozen set)', () => {
    const base = resolveParameters({ c1: 2.5 });
    expect(() => resolveParameters({ c1: 1 }, base)).toThrow();
    expect(base.c1).toBe(2.5);
    expect(Object.isFrozen(resolveParameters({ c0: 4 }, base))).toBe(true);
  });
});

describe('throughput estimate and phases', () => {
  it('uses the harmonic mean of the last five samples', () => {
    expect(harmonicMeanKbps([])).toBeUndefined();
    expect(harmonicMeanKbps([1000, 4000])).toBeCloseTo(1600);
    expect(harmonicMeanKbps([1, 1, 1000, 1000, 1000, 1000, 1000])).toBeCloseTo(1000);
  });

  it('bounds a sample list and drops invalid samples', () => {
    expect(appendBounded([1, 2, 3], 4, 3)).toEqual([2, 3, 4]);
    expect(appendBounded([1], NaN, 3)).toEqual([1]);
  });

  it('is initial until playback starts, and again after a seek or a stall', () => {
    const run = (...events: PlaybackEvent[]) => events.reduce<PlaybackState>(nextPlaybackState, INITIAL_PLAYBACK_STATE).phase;
    expect(run({ type: 'load' })).toBe('initial');
    expect(run({ type: 'playing' })).toBe('playing');
    expect(run({ type: 'playing' }, { type: 'seeking' })).toBe('initial');
    expect(run({ type: 'playing' }, { type: 'waiting' })).toBe('initial');
    expect(run({ type: 'playing' }, { type: 'waiting' }, { type: 'playing' })).toBe('playing');
    expect(run({ type: 'playing' }, { type: 'load' })).toBe('initial');
  });

  it('keeps the current phase on events that do not change it', () => {
    const playing = nextPlaybackState(INITIAL_PLAYBACK_STATE, { type: 'playing' });
    expect(nextPlaybackState(playing, { type: 'seeked' }).phase).toBe('playing');
    expect(nextPlaybackState(playing, { type: 'timeupdate', mediaTimeSeconds: 5 }).phase).toBe('playing');
    expect(nextPlaybackState(INITIAL_PLAYBACK_STATE, { type: 'seeked' }).phase).toBe('initial');
  });

  it('resumes when media time advances after a seek (no `playing` after a seek within the buffer), not during it', () => {
    const run = (...events: PlaybackEvent[]) => events.reduce<PlaybackState>(nextPlaybackState, INITIAL_PLAYBACK_STATE).phase;
    const t = (s: number): PlaybackEvent => ({ type: 'timeupdate', mediaTimeSeconds: s });
    expect(run({ type: 'playing' }, { type: 'seeking' }, t(30), t(31))).toBe('initial');
    expect(run({ type: 'playing' }, { type: 'seeking' }, t(30), { type: 'seeked' }, t(31))).toBe('initial');
    expect(run({ type: 'playing' }, { type: 'seeking' }, { type: 'seeked' }, t(31), t(31.25))).toBe('playing');
    // After a stall the time stands still until data comes; `playing` ends it.
    expect(run({ type: 'playing' }, t(10), { type: 'waiting' }, t(10))).toBe('initial');
    expect(INITIAL_PLAYBACK_STATE.phase).toBe('initial');
  });
});

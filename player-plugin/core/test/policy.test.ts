import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMETERS, PRESETS, type SammyParameters } from '../src/config.js';
import {
  LOW_BUFFER_SAFETY,
  minimumThroughputKbps,
  selectBitrateKbps,
  bufferAfterStepUp,
  sustainableBitrateKbps,
} from '../src/policy/bitrate.js';
import { decideBitrate, decidePace, SHALLOW_BUFFER_SECONDS } from '../src/policy/decide.js';
import { FILL_MARGIN, heldPaceKbps, holdLimits, HOLD_FROM_FULLNESS } from '../src/policy/hold.js';
import { bufferFullness, paceMultiplier, paceRateKbps, paceRungKbps } from '../src/policy/pace-rate.js';
import { paceShortfalls, sammyRuleRequirement, sammyRuleShortfalls, scheduleShortfalls } from '../src/policy/pace-requirements.js';
import { minimumMultiplier, resolveParameters, SammyConfigError } from '../src/policy/parameters.js';
import { nextPlaybackState, INITIAL_PLAYBACK_STATE, type PlaybackEvent, type PlaybackState } from '../src/policy/phase.js';
import { harmonicMeanKbps, appendBounded } from '../src/policy/throughput.js';
import {
  INITIAL_PROBE_STATE,
  nextProbeState,
  paceRequest,
  probeEstimateKbps,
  type ProbeRequest,
  type ProbeState,
} from '../src/policy/probe.js';

const LADDER = [300, 750, 1500, 3000, 6000];

describe('pace-rate policy', () => {
  it('defaults to the lower pace of issue 17 (c0 = 4 empty, c1 = 1.25 from half the buffer target and 15 s at most, on the next rung, hysteresis 1.1, a probe every 3 video segments), also named PRESETS.bufferAware', () => {
    expect(DEFAULT_PARAMETERS).toMatchObject({
      c0: 4,
      c1: 1.25,
      fullBufferShare: 0.5,
      fullBufferMaxSeconds: 15,
      paceBase: 'next-rung',
      stepUpFactor: 1.1,
      probeInterval: 3,
      capacityShare: 0.8,
      linkShare: 0,
    });
    expect(PRESETS.bufferAware).toEqual({
      c0: 4,
      c1: 1.25,
      fullBufferShare: 0.5,
      fullBufferMaxSeconds: 15,
      paceBase: 'next-rung',
      stepUpFactor: 1.1,
      probeInterval: 3,
      linkShare: 0,
    });
    expect(Object.isFrozen(PRESETS.bufferAware)).toBe(true);
    expect(resolveParameters(PRESETS.bufferAware)).toEqual(DEFAULT_PARAMETERS);
  });

  it('keeps the paper’s algorithm and production values as a preset, PRESETS.paper: a pace schedule, no hysteresis, every segment paced by it', () => {
    expect(PRESETS.paper).toEqual({
      c0: 3.2,
      c1: 2.8,
      fullBufferShare: 1,
      fullBufferMaxSeconds: Infinity,
      paceBase: 'top',
      stepUpFactor: 0,
      probeInterval: 1,
      linkShare: 0,
    });
    expect(Object.isFrozen(PRESETS.paper)).toBe(true);
    // As an adapter takes it, spread into the options (or update): every other tunable keeps its value.
    expect(resolveParameters(PRESETS.paper)).toEqual({ ...DEFAULT_PARAMETERS, ...PRESETS.paper });
    expect(resolveParameters({ ...PRESETS.paper, initialVideoBitrateKbps: 500 }).initialVideoBitrateKbps).toBe(500);
    expect(resolveParameters(PRESETS.bufferAware, resolveParameters({ ...PRESETS.paper, beta: 0.8 }))).toEqual({
      ...DEFAULT_PARAMETERS,
      beta: 0.8,
    });
  });

  it('names the neighbour-first point of the frontier PRESETS.neighbourFirst: the defaults with linkShare on, validated as every set, and spread like every preset', () => {
    expect(PRESETS.neighbourFirst).toEqual({ ...PRESETS.bufferAware, linkShare: PRESETS.neighbourFirst.linkShare });
    expect(PRESETS.neighbourFirst.linkShare).toBeGreaterThan(0);
    expect(Object.isFrozen(PRESETS.neighbourFirst)).toBe(true);
    expect(resolveParameters({ ...PRESETS.neighbourFirst })).toEqual({ ...DEFAULT_PARAMETERS, ...PRESETS.neighbourFirst });
    // Back to the viewer first: a preset spread after it resets the knob.
    expect(resolveParameters(PRESETS.bufferAware, resolveParameters(PRESETS.neighbourFirst))).toEqual(DEFAULT_PARAMETERS);
    for (const linkShare of [-0.1, 1.01, NaN])
      expect(() => resolveParameters({ linkShare })).toThrow(/linkShare must be a number ≥ 0 and ≤ 1/);
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
    const input = { fullBufferSeconds: 30, paceBaseKbps: 6000, c0: 3.2, c1: 2.8 };
    expect(paceRateKbps({ ...input, bufferLevelSeconds: 0 })).toBeCloseTo(19_200);
    expect(paceRateKbps({ ...input, bufferLevelSeconds: 30 })).toBeCloseTo(16_800);
    expect(paceRateKbps({ ...input, bufferLevelSeconds: 15 })).toBeCloseTo(18_000);
  });

  it('sends no rtp in the initial phase', () => {
    const input = { bufferLevelSeconds: 2, fullBufferSeconds: 30, paceBaseKbps: 6128, parameters: resolveParameters(PRESETS.paper) };
    expect(decidePace({ ...input, phase: 'initial' })).toBeUndefined();
    // (2.8·2/30 + 3.2·28/30) × 6128 = 19 446 → 19 400.
    expect(decidePace({ ...input, phase: 'playing' })).toBe(19_400);
  });
});

describe('pace base (paceBase)', () => {
  it('is the top with paceBase top; with next-rung the fetched rung at the top of the ladder, else the next one up', () => {
    expect(paceRungKbps('top', 6000, 1500, LADDER)).toEqual({ kbps: 6000, belowTop: false });
    expect(paceRungKbps('next-rung', 6000, 1500, LADDER)).toEqual({ kbps: 3000, belowTop: true });
    expect(paceRungKbps('next-rung', 6000, 6000, LADDER)).toEqual({ kbps: 6000, belowTop: false });
    // A ladder the player caps (dash.js filters it by its settings): its top is the fetched rung.
    expect(paceRungKbps('next-rung', 6000, 3000, [300, 750, 1500, 3000])).toEqual({ kbps: 3000, belowTop: false });
    // Not known: the top.
    expect(paceRungKbps('next-rung', 6000, undefined, LADDER)).toEqual({ kbps: 6000, belowTop: false });
    expect(paceRungKbps('next-rung', 6000, 1500, undefined)).toEqual({ kbps: 6000, belowTop: false });
  });

  it('below the top, paces at the schedule’s largest multiplier whatever the buffer', () => {
    const input = { bufferLevelSeconds: 30, fullBufferSeconds: 30, paceBaseKbps: 3128, c0: 3.2, c1: 1.25 };
    expect(paceRateKbps(input)).toBeCloseTo(1.25 * 3128);
    expect(paceRateKbps({ ...input, belowTop: true })).toBeCloseTo(3.2 * 3128);
    expect(paceRateKbps({ ...input, c0: 1.2, c1: 1.6, belowTop: true })).toBeCloseTo(1.6 * 3128);
  });
});

describe('probe and hold (probeInterval)', () => {
  const parameters = DEFAULT_PARAMETERS;
  const limits = (bufferLevelSeconds: number, capacityKbps: number | undefined) =>
    holdLimits({ bufferLevelSeconds, fullBufferSeconds: 15, capacityKbps, fetchedBaseKbps: 2428, parameters });

  it('holds nothing below two thirds of the full level, nor without a measured capacity or a fetched rung', () => {
    expect(HOLD_FROM_FULLNESS).toBeCloseTo(2 / 3);
    expect(limits(9.9, 4000)).toBeUndefined();
    expect(limits(10, 4000)).toBeDefined();
    expect(limits(12, undefined)).toBeUndefined();
    expect(
      holdLimits({ bufferLevelSeconds: 12, fullBufferSeconds: 15, capacityKbps: 4000, fetchedBaseKbps: undefined, parameters }),
    ).toBeUndefined();
  });

  it('caps at capacityShare of the capacity on the wire, above the floor that keeps the rung (Eq. 1 and an undrained buffer; stepping up is the probes’ part)', () => {
    // On the wire ÷ (1 − 0.05).
    expect(limits(10, 4000)!.capKbps).toBeCloseTo((0.8 * 4000) / 0.95);
    expect(limits(30, 4000)!.capKbps).toBeCloseTo((0.8 * 4000) / 0.95);
    // The floor: Sammy's rule keeping the rung at that buffer level after the overhead, × (rung + top audio).
    expect(limits(10, 4000)!.floorKbps).toBeCloseTo((Math.max(1 / 0.7 / (1 + 10 / 20), 1) / 0.95) * 2428);
    expect(limits(12, 4000)!.floorKbps).toBeCloseTo((1 / 0.95) * 2428);
    // Below the hysteresis floor the rule asks of a pace that must let it step up (sammyRuleRequirement): a held segment only keeps its rung.
    expect(limits(12, 4000)!.floorKbps).toBeLessThan((sammyRuleRequirement(parameters).multipleAt!(12) / 0.95) * 2428);
  });

  it('with linkShare (neighbour first), holds at every buffer level once the link is measured, with no floor: at the link below two thirds of the full level, at linkShare of it from there', () => {
    const share = { ...parameters, linkShare: 0.7 };
    const at = (b: number, capacityKbps: number | undefined) =>
      holdLimits({ bufferLevelSeconds: b, fullBufferSeconds: 15, capacityKbps, fetchedBaseKbps: 2428, parameters: share });
    expect(at(2, 4000)).toEqual({ capKbps: 4000 / 0.95, floorKbps: 0 });
    expect(at(9.9, 4000)).toEqual({ capKbps: 4000 / 0.95, floorKbps: 0 });
    expect(at(10, 4000)!.capKbps).toBeCloseTo((0.7 * 4000) / 0.95);
    expect(at(30, 2000)).toEqual({ capKbps: (0.7 * 2000) / 0.95, floorKbps: 0 });
    // The floor the default keeps is gone: a pace below the rung, set by the link, not by the pace.
    expect(heldPaceKbps(13_700, at(12, 2000)!)).toBeLessThan(2428);
    expect(at(12, undefined)).toBeUndefined();
  });

  it('the fill cap (issue 40): on a steady link, every request, probes and the fill too, at capacityShare of the link where that carries FILL_MARGIN × the rule’s need of the pace base', () => {
    // A 4K film's top (15 600 + 128 kbps) on a link measured at 37 Mbit/s: 0.8 × 37 = 29.6 ≥ 1.25 × 1.19 × 15 728 at 4 s of buffer.
    const home = (b: number, extra: { steady?: boolean; probe?: boolean; capacityKbps?: number } = {}) =>
      holdLimits({
        bufferLevelSeconds: b,
        fullBufferSeconds: 15,
        capacityKbps: 37_000,
        fetchedBaseKbps: 15_728,
        paceBaseKbps: 15_728,
        steady: true,
        parameters,
        ...extra,
      });
    expect(FILL_MARGIN).toBe(1.25);
    for (const b of [4, 8, 12]) expect(home(b, { probe: true })).toEqual({ capKbps: (0.8 * 37_000) / 0.95, floorKbps: 0 });
    // Below the margin (an empty buffer: 1.25 × 1.43 × 15 728 = 28.1 Mbit/s measured > 0.8 × 24 000), an unsteady link, or no pace base: as before.
    expect(home(0, { capacityKbps: 24_000 })).toBeUndefined();
    expect(home(4, { steady: false })).toBeUndefined();
    expect(home(4, { probe: true, steady: false })).toBeUndefined();
    expect(
      holdLimits({ bufferLevelSeconds: 4, fullBufferSeconds: 15, capacityKbps: 37_000, fetchedBaseKbps: 15_728, steady: true, parameters }),
    ).toBeUndefined();
    // Neighbour first keeps its own caps.
    expect(
      holdLimits({
        bufferLevelSeconds: 4,
        fullBufferSeconds: 15,
        capacityKbps: 37_000,
        fetchedBaseKbps: 15_728,
        paceBaseKbps: 15_728,
        steady: true,
        probe: true,
        parameters: { ...parameters, linkShare: 0.6 },
      }),
    ).toBeUndefined();
  });

  it('paces a held request at the schedule, no faster than the cap, never below the floor; decidePace rounds it as rtp', () => {
    expect(heldPaceKbps(13_700, { capKbps: 3500, floorKbps: 2800 })).toBe(3500);
    expect(heldPaceKbps(3000, { capKbps: 3500, floorKbps: 2800 })).toBe(3000);
    expect(heldPaceKbps(13_700, { capKbps: 1500, floorKbps: 2811 })).toBe(2811);
    const input = {
      phase: 'playing' as const,
      bufferLevelSeconds: 12,
      fullBufferSeconds: 15,
      paceBaseKbps: 3428,
      belowTop: true,
      parameters,
    };
    expect(decidePace(input)).toBe(13_700);
    expect(decidePace({ ...input, hold: { capKbps: 3537, floorKbps: 2811 } })).toBe(3500);
    expect(decidePace({ ...input, phase: 'initial', hold: { capKbps: 3537, floorKbps: 2811 } })).toBeUndefined();
  });
});

describe('the probe reducer (policy/probe.ts): state and event in, state out', () => {
  const p = DEFAULT_PARAMETERS;
  // 12 s of a 15 s full level, a 3000 kbps rung + 428 audio fetched, the schedule at 13 700 kbps.
  const request: ProbeRequest = {
    video: true,
    scheduleKbps: 13_700,
    rung: { kbps: 3000, belowTop: false },
    bufferLevelSeconds: 12,
    fullBufferSeconds: 15,
    fetchedBaseKbps: 3428,
  };
  const probeSample = (state: ProbeState, throughputKbps: number, paceRateKbps = 13_700) =>
    nextProbeState(state, { type: 'sample', held: false, throughputKbps, paceRateKbps }, p);

  it('after a probe held back by the link, holds the next probeInterval − 1 video requests at a share of its capacity, then probes', () => {
    let state = probeSample(INITIAL_PROBE_STATE, 5000);
    expect(state).toMatchObject({ linkLimited: true, spaced: true, probeKbps: [5000] });
    expect(probeEstimateKbps(state, p)).toBe(5000);
    const paces: Array<[number | undefined, boolean]> = [];
    for (let i = 0; i < 3; i++) {
      const paced = paceRequest({ ...state, spaced: false }, request, p);
      paces.push([paced.paceRateKbps, paced.held]);
      state = paced.state;
    }
    // 0.8 of 5000 on the wire (÷ 0.95) = 4211 → 4200; the third a probe, at the schedule.
    expect(paces).toEqual([
      [4200, true],
      [4200, true],
      [13_700, false],
    ]);
    expect(state.heldInARow).toBe(0);
  });

  it('a probe that met its pace holds nothing; unpaced requests stay unpaced and unheld', () => {
    const state = probeSample(INITIAL_PROBE_STATE, 13_000);
    expect(state.linkLimited).toBe(false);
    expect(paceRequest(state, request, p)).toMatchObject({ paceRateKbps: 13_700, held: false });
    expect(paceRequest(state, { ...request, scheduleKbps: undefined }, p)).toMatchObject({ paceRateKbps: undefined, held: false });
  });

  it('a step up with a refetch leaves the refetched segments and the one after unheld, at the probes’ rate when the link capped the last (no faster: issue 39), else at least at it', () => {
    let state = nextProbeState(probeSample(INITIAL_PROBE_STATE, 5000), { type: 'switch', refetchSeconds: 8, segmentSeconds: 4 }, p);
    expect(state).toMatchObject({ unheldLeft: 3, spaced: false });
    for (let i = 0; i < 3; i++) {
      // 5000 / 0.95 = 5263 on the wire → 5300, above the 4000 schedule and below the 13 700 one; it measures its pace (held).
      expect(paceRequest(state, { ...request, scheduleKbps: 13_700 }, p)).toMatchObject({ paceRateKbps: 5300, held: true });
      const paced = paceRequest(state, { ...request, scheduleKbps: 4000 }, p);
      expect(paced).toMatchObject({ paceRateKbps: 5300, held: true });
      state = paced.state;
    }
    expect(state.unheldLeft).toBe(0);
    // A last probe that kept its pace (the link not measured capping): at the schedule, at least at the probes' rate.
    const free = nextProbeState(probeSample(INITIAL_PROBE_STATE, 12_000), { type: 'switch', refetchSeconds: 8, segmentSeconds: 4 }, p);
    expect(paceRequest(free, { ...request, scheduleKbps: 13_700 }, p)).toMatchObject({ paceRateKbps: 13_700, held: false });
    // 12 000 / 0.95 = 12 632 → 12 600 (rtp rounds to the nearest 100).
    expect(paceRequest(free, { ...request, scheduleKbps: 4000 }, p)).toMatchObject({ paceRateKbps: 12_600, held: false });
    expect(nextProbeState(state, { type: 'switch', refetchSeconds: undefined, segmentSeconds: 4 }, p).unheldLeft).toBe(0);
  });

  it('a held download the link held back lowers the capacity the next ones are held at (no probe into the dip), and no longer spaces probes out; audio never probes', () => {
    const probed = probeSample(INITIAL_PROBE_STATE, 5000);
    const state = nextProbeState(probed, { type: 'sample', held: true, throughputKbps: 2000, paceRateKbps: 4200 }, p);
    expect(state).toMatchObject({ probeKbps: [5000, 2000], linkLimited: true, linkKbps: 2000, spaced: false, heldInARow: 0 });
    // The harmonic mean of 5000 and 2000 is 2857, 0.8 of it on the wire 2406: below the 3000 rung's floor
    // (3428 / 0.95 = 3608 → 3600), which holds; a 1500 rung's (1628 / 0.95 = 1714) lets it through.
    expect(paceRequest(state, request, p)).toMatchObject({ paceRateKbps: 3600, held: true });
    expect(paceRequest(state, { ...request, fetchedBaseKbps: 1628 }, p)).toMatchObject({ paceRateKbps: 2400, held: true });
    expect(paceRequest(state, { ...request, video: false }, p).held).toBe(true);
    // One that kept its pace leaves the capacity as it was, and says the link carried it.
    const kept = nextProbeState(probed, { type: 'sample', held: true, throughputKbps: 4000, paceRateKbps: 4200 }, p);
    expect(kept).toMatchObject({ probeKbps: [5000], linkLimited: true, linkKbps: undefined, spaced: true });
  });
});

describe('the rule at a shallow buffer (decideBitrate)', () => {
  const input = {
    phase: 'playing' as const,
    mediaType: 'video' as const,
    bitratesKbps: [300, 750, 1500, 2300, 3300],
    initialEstimateKbps: undefined,
    parameters: DEFAULT_PARAMETERS,
  };
  it(`below ${SHALLOW_BUFFER_SECONDS} s goes by the latest download the link held back when lower than the session’s estimate; not above, and never by a higher one`, () => {
    // Eq. 1 at 4 s: 0.7 × x × 1.2; the session's 4550 kbps allows 3300, the last sample's 3274 only 2300 (issue 33's volatile LTE).
    const at = (bufferLevelSeconds: number, linkThroughputKbps: number | undefined) =>
      decideBitrate({ ...input, bufferLevelSeconds, sessionEstimateKbps: 4550, linkThroughputKbps });
    expect(at(4, undefined)).toMatchObject({ bitrateKbps: 3300, estimateKbps: 4550 });
    expect(at(4, 3274)).toMatchObject({ bitrateKbps: 2300, estimateKbps: 3274 });
    expect(at(4, 9000)).toMatchObject({ bitrateKbps: 3300, estimateKbps: 4550 });
    expect(at(SHALLOW_BUFFER_SECONDS, 3274).estimateKbps).toBe(4550);
    // No estimate yet: the player's own start.
    expect(
      decideBitrate({ ...input, bufferLevelSeconds: 0, sessionEstimateKbps: undefined, linkThroughputKbps: undefined }).bitrateKbps,
    ).toBe(750);
  });

  it(`with a segment duration is as careful as dash.js’s InsufficientBufferRule below a few seconds of buffer (the low-buffer guard): the next segment downloads within ${LOW_BUFFER_SAFETY} of the buffer at the estimate`, () => {
    // Issue 39's real failure: 2300–3300 kbps held with 0–5 s of buffer on a 1–3 Mbit/s link. Eq. 1 at 2 s
    // with a 3000 kbps estimate allows 2300 (0.7 × 3000 × 1.1 = 2310); the guard 0.7 × 3000 × 2 / 4 = 1050: 750.
    const at = (bufferLevelSeconds: number, segmentSeconds: number | undefined) =>
      decideBitrate({ ...input, bufferLevelSeconds, sessionEstimateKbps: 3000, linkThroughputKbps: undefined, segmentSeconds }).bitrateKbps;
    expect(at(2, 4)).toBe(750);
    // Before any download has told the segment's duration: Eq. 1 alone.
    expect(at(2, undefined)).toBe(2300);
    // An empty buffer: the lowest rung, as dash.js’s rule picks.
    expect(at(0, 4)).toBe(300);
    // From 5 s (4 s segments) Eq. 1 is the stricter: nothing changes.
    expect(at(8, 4)).toBe(2300);
    expect(at(8, 4)).toBe(at(8, undefined));
    expect(
      selectBitrateKbps({
        bitratesKbps: [300, 750, 1500, 2300, 3300],
        estimateKbps: 3000,
        bufferLevelSeconds: 4,
        beta: 0.7,
        lookaheadSeconds: 20,
        segmentSeconds: 4,
      }),
    ).toBe(1500);
  });

  it('the latest video download counts when the link held it back (unpaced, or below 80% of its pace), not when its pace did', () => {
    const sample = (throughputKbps: number, paceRateKbps: number | undefined, held = false) =>
      nextProbeState(INITIAL_PROBE_STATE, { type: 'sample', held, throughputKbps, paceRateKbps }, DEFAULT_PARAMETERS).linkKbps;
    expect(sample(3000, undefined)).toBe(3000);
    expect(sample(3000, 4000)).toBe(3000);
    expect(sample(3300, 4000)).toBeUndefined();
    expect(sample(3300, 4000, true)).toBeUndefined();
    expect(sample(2000, 4000, true)).toBe(2000);
  });
});

describe('bitrate policy (Section 4.2, Eq. 1)', () => {
  it('with β = 0.5 and an empty buffer, the top rung needs twice its bitrate (Fig. 2)', () => {
    expect(minimumThroughputKbps(6000, 0, 0.5, 20)).toBe(12_000);
    expect(selectBitrateKbps({ bitratesKbps: LADDER, estimateKbps: 12_000, bufferLevelSeconds: 0, beta: 0.5, lookaheadSeconds: 20 })).toBe(
      6000,
    );
    expect(selectBitrateKbps({ bitratesKbps: LADDER, estimateKbps: 11_999, bufferLevelSeconds: 0, beta: 0.5, lookaheadSeconds: 20 })).toBe(
      3000,
    );
  });

  it('needs less throughput as the buffer grows: x ≥ r/β/(1 + B0/D)', () => {
    // B0 = D halves the requirement.
    expect(minimumThroughputKbps(6000, 20, 0.5, 20)).toBe(6000);
    expect(sustainableBitrateKbps(6000, 20, 0.5, 20)).toBe(6000);
    expect(selectBitrateKbps({ bitratesKbps: LADDER, estimateKbps: 6000, bufferLevelSeconds: 20, beta: 0.5, lookaheadSeconds: 20 })).toBe(
      6000,
    );
  });

  it('keeps the top rung, and steps up to the next rung, when measured throughput equals the pace rate (both presets)', () => {
    for (const p of [PRESETS.paper, PRESETS.bufferAware].map((preset) => resolveParameters(preset))) {
      const { c0, c1, beta, lookaheadSeconds, overhead, stepUpFactor } = p;
      for (let buffer = 0; buffer <= 60; buffer += 0.5) {
        const full = { bufferLevelSeconds: buffer, fullBufferSeconds: 30 * p.fullBufferShare, c0, c1 };
        const measured = paceRateKbps({ ...full, paceBaseKbps: 6000 }) * (1 - overhead);
        const keep = { bitratesKbps: LADDER, bufferLevelSeconds: buffer, beta, lookaheadSeconds, stepUpFactor };
        expect(selectBitrateKbps({ ...keep, estimateKbps: measured, currentBitrateKbps: 6000 }), `${buffer} s`).toBe(6000);
        expect(selectBitrateKbps({ ...keep, estimateKbps: measured, currentBitrateKbps: 3000 }), `${buffer} s`).toBe(6000);
        // next-rung below the top: the pace on the next rung lets the rule step up to it.
        const below = paceRateKbps({ ...full, paceBaseKbps: 3000, belowTop: true }) * (1 - overhead);
        expect(selectBitrateKbps({ ...keep, estimateKbps: below, currentBitrateKbps: 1500 })).toBeGreaterThanOrEqual(3000);
      }
    }
  });

  it('steps up only on an estimate of stepUpFactor × the rung, but keeps a rung by Eq. 1 alone (hysteresis)', () => {
    // A 0.8× link (4800 kbps measured) at a 26 s buffer: Eq. 1 allows 0.7 × 4800 × 2.3 = 7728 ≥ 6000.
    const input = { bitratesKbps: LADDER, estimateKbps: 4800, bufferLevelSeconds: 26, beta: 0.7, lookaheadSeconds: 20 };
    expect(selectBitrateKbps({ ...input, currentBitrateKbps: 6000, stepUpFactor: 1.1 })).toBe(6000); // keeps: drains the buffer for bitrate (Appendix A)
    expect(selectBitrateKbps({ ...input, currentBitrateKbps: 3000, stepUpFactor: 1.1 })).toBe(3000); // no step up to a rung the link cannot carry
    expect(selectBitrateKbps({ ...input, currentBitrateKbps: 3000, stepUpFactor: 0 })).toBe(6000); // the paper's rule: back up, and round again
    expect(selectBitrateKbps({ ...input, estimateKbps: 6601, currentBitrateKbps: 3000, stepUpFactor: 1.1 })).toBe(6000);
    // Stepping down is never held back; with no estimate the fallback applies as before.
    expect(selectBitrateKbps({ ...input, estimateKbps: 1000, currentBitrateKbps: 6000, stepUpFactor: 1.1 })).toBe(1500);
    expect(
      selectBitrateKbps({ ...input, estimateKbps: undefined, fallbackBitrateKbps: 1000, currentBitrateKbps: 300, stepUpFactor: 1.1 }),
    ).toBe(750);
  });

  it('with hysteresis, steps up only when Eq. 1 still holds once the player has refetched what the step up makes it refetch', () => {
    // The lab's 1.5× link (issue 17): a 4000 kbps estimate between the 2300 and 3300 kbps rungs, 4 s segments,
    // dash.js's fast switching (from 1.5 s of buffer with a SegmentTimeline manifest, as ffmpeg writes).
    const lab = {
      bitratesKbps: [300, 750, 1500, 2300, 3300],
      estimateKbps: 4000,
      beta: 0.7,
      lookaheadSeconds: 20,
      currentBitrateKbps: 2300,
      stepUpFactor: 1.1,
      segmentSeconds: 4,
      stepUpRefetchSeconds: 1.5,
    };
    // At 5 s (the lab's step up): Eq. 1 allows 3300 now (3771 ≤ 4000), but refetching the buffer (2 segments,
    // 8 s of media in 6.6 s) would empty it, where keeping 3300 needs 4714: it would step back down.
    expect(bufferAfterStepUp(5, 3300, 4000, 4, 1.5)).toBeCloseTo(5 - (8 * 3300) / 4000);
    expect(selectBitrateKbps({ ...lab, bufferLevelSeconds: 5 })).toBe(2300);
    expect(selectBitrateKbps({ ...lab, bufferLevelSeconds: 8.3 })).toBe(2300);
    // (At 1.7 s Eq. 1 alone would keep 2300; the low-buffer guard, 0.7 × 4000 × 1.7 / 4 = 1190, 750.)
    expect(selectBitrateKbps({ ...lab, currentBitrateKbps: 3300, bufferLevelSeconds: 1.7 })).toBe(750);
    // At 24 s: 24 s refetched in 19.8 s leaves 4.2 s, where Eq. 1 keeps 3300 (3896 ≤ 4000) but the low-buffer
    // guard allows 0.7 × 4000 × 4.2 / 4 = 2940: it would
    // step back down. At 28 s, 28 s refetched in 23.1 s leaves 4.9 s (3430): it steps up once.
    expect(selectBitrateKbps({ ...lab, bufferLevelSeconds: 20 })).toBe(2300);
    expect(selectBitrateKbps({ ...lab, bufferLevelSeconds: 24 })).toBe(2300);
    expect(selectBitrateKbps({ ...lab, currentBitrateKbps: 3300, bufferLevelSeconds: bufferAfterStepUp(24, 3300, 4000, 4, 1.5) })).toBe(
      2300,
    );
    expect(selectBitrateKbps({ ...lab, bufferLevelSeconds: 28 })).toBe(3300);
    expect(selectBitrateKbps({ ...lab, currentBitrateKbps: 3300, bufferLevelSeconds: bufferAfterStepUp(28, 3300, 4000, 4, 1.5) })).toBe(
      3300,
    );
    // Below 1.5 s dash.js refetches nothing; a player that never refetches (Shaka, hls.js) gains from the
    // step up's first segment, so Eq. 1 at the buffer as it is; no hysteresis (the paper): Eq. 1 alone.
    expect(bufferAfterStepUp(1.4, 3300, 4000, 4, 1.5)).toBe(1.4);
    expect(selectBitrateKbps({ ...lab, bufferLevelSeconds: 8.3, stepUpRefetchSeconds: undefined })).toBe(3300);
    expect(selectBitrateKbps({ ...lab, bufferLevelSeconds: 8.3, segmentSeconds: undefined })).toBe(3300);
    expect(selectBitrateKbps({ ...lab, bufferLevelSeconds: 8.3, stepUpFactor: 0 })).toBe(3300);
    // Keeping a rung refetches nothing: the same estimate and buffer keep 3300 once fetched.
    expect(selectBitrateKbps({ ...lab, bufferLevelSeconds: 8.3, currentBitrateKbps: 3300 })).toBe(3300);
  });

  it('picks the lowest rung with no estimate, and ignores an unsorted ladder order', () => {
    expect(
      selectBitrateKbps({
        bitratesKbps: [6000, 300, 1500],
        estimateKbps: undefined,
        bufferLevelSeconds: 0,
        beta: 0.7,
        lookaheadSeconds: 20,
      }),
    ).toBe(300);
    expect(
      selectBitrateKbps({ bitratesKbps: [6000, 300, 1500], estimateKbps: 2500, bufferLevelSeconds: 0, beta: 0.7, lookaheadSeconds: 20 }),
    ).toBe(1500);
    expect(() => selectBitrateKbps({ bitratesKbps: [], estimateKbps: 1, bufferLevelSeconds: 0, beta: 0.7, lookaheadSeconds: 20 })).toThrow(
      /no bitrate/,
    );
  });
});

describe('configuration validation', () => {
  const refusal = (f: () => unknown): SammyConfigError => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(SammyConfigError);
      return e as SammyConfigError;
    }
    throw new Error('not refused');
  };

  it('accepts the defaults (the paper’s), PRESETS.bufferAware and the paper’s public prototype (2.8 / 1.6 with β = 0.9)', () => {
    expect(resolveParameters()).toEqual(DEFAULT_PARAMETERS);
    expect(resolveParameters(PRESETS.bufferAware)).toMatchObject(PRESETS.bufferAware);
    expect(resolveParameters(PRESETS.bufferAware, DEFAULT_PARAMETERS, undefined, 30)).toMatchObject(PRESETS.bufferAware);
    expect(resolveParameters({ ...PRESETS.paper, c0: 2.8, c1: 1.6, beta: 0.9 }).c1).toBe(1.6);
  });

  it('holds c1 to Eq. 1 at the full buffer with its look-ahead, not at an empty one: the paper’s algorithm (the defaults) may go down to the rung itself', () => {
    // β 0.7, D 20, a 30 s buffer: Eq. 1 needs 1 / (0.7 × (1 + 30/20)) = 0.57 measured — below the
    // rung itself, where the buffer drains: the floor is 1 / 0.95 = 1.06 (was 1.51, the empty-buffer threshold).
    expect(resolveParameters({ ...PRESETS.paper, c1: 1.06 }, DEFAULT_PARAMETERS, undefined, 30).c1).toBe(1.06);
    const e = refusal(() => resolveParameters({ ...PRESETS.paper, c1: 1 }, DEFAULT_PARAMETERS, undefined, 30));
    expect(e.parameter).toBe('c1');
    expect(e.shortfall).toMatchObject({ bufferLevelSeconds: 30, minimum: 1.06 });
    expect(e.message).toMatch(
      /c1 = 1 cannot sustain the top rung with beta = 0.7 .* at a full buffer \(30 s\).*an undrained buffer need \(1× the rung after 5% overhead\).*c1 must be at least 1.06/,
    );
    // A smaller full level is stricter, where Eq. 1's look-ahead binds: at 5 s, 1 / (0.7 × 1.25) / 0.95 = 1.21.
    expect(refusal(() => resolveParameters({ ...PRESETS.paper, c1: 1.1 }, DEFAULT_PARAMETERS, undefined, 5)).shortfall).toMatchObject({
      bufferLevelSeconds: 5,
      minimum: 1.21,
    });
    // And a line that clears both ends clears every level between (Eq. 1 is convex in the buffer).
    expect(resolveParameters({ ...PRESETS.paper, c0: 1.51, c1: 1.21 }, DEFAULT_PARAMETERS, undefined, 5).c0).toBe(1.51);
  });

  it('holds the defaults (PRESETS.bufferAware) to the step-up floor: measured ≥ max(Eq. 1, stepUpFactor) × the rung at the full level', () => {
    // Full at 15 s (half of a 30 s target): Eq. 1 needs 1 / (0.7 × 1.75) = 0.82, the hysteresis 1.1: c1 ≥ 1.1 / 0.95 = 1.16.
    const e = refusal(() => resolveParameters({ c1: 1.1 }, DEFAULT_PARAMETERS, undefined, 30));
    expect(e.parameter).toBe('c1');
    expect(e.message).toMatch(
      /c1 = 1.1 cannot sustain the top rung with beta = 0.7 \(Sammy's rule\) at a full buffer \(15 s\): Eq. 1 \(look-ahead 20 s\), stepUpFactor 1.1 .*\(1.1× the rung after.*c1 must be at least 1.16, or raise beta/,
    );
    expect(resolveParameters({ c1: 1.16 }, DEFAULT_PARAMETERS, undefined, 30).c1).toBe(1.16);
    // Full at 5 s (half of the 10 s assumed): Eq. 1 binds, 1 / (0.7 × 1.25) / 0.95 = 1.21, with or without the hysteresis.
    expect(resolveParameters({ c1: 1.21 }).c1).toBe(1.21);
    expect(() => resolveParameters({ c1: 1.2 })).toThrow(/at a full buffer \(5 s\).*c1 must be at least 1.21/);
    expect(() => resolveParameters({ c1: 1.2, stepUpFactor: 0 })).toThrow(/c1 must be at least 1.21/);
    // The paper's algorithm (no hysteresis, full at the whole 10 s): Eq. 1 needs
    // 1 / (0.7 × 1.5) = 0.95 measured there, below the rung itself, so the rung binds: 1 / 0.95 = 1.06.
    expect(resolveParameters({ ...PRESETS.paper, c1: 1.06 }).c1).toBe(1.06);
    expect(() => resolveParameters({ ...PRESETS.paper, c1: 1.05 })).toThrow(/c1 must be at least 1.06/);
  });

  it('refuses a line that clears both ends but not a buffer level between them (a schedule the ends do not bound)', () => {
    // A need that is not convex: 2× up to 15 s, 1× above. c0 2.1 and c1 1.1 clear 0 s and 30 s, not 15 s.
    const step = {
      rule: 'test',
      reason: 'test',
      throughputMultiple: 2,
      multipleAt: (b: number) => (b <= 15 ? 2 : 1),
      fromBufferSeconds: 0,
      toBufferSeconds: Infinity,
    };
    const [s] = scheduleShortfalls({ c0: 2.1, c1: 1.1, overhead: 0 }, step, 30);
    expect(s).toMatchObject({ parameter: 'c1', bufferLevelSeconds: 15, where: 'at a buffer of 15 s', need: 2 });
    // c0·(1/2) + c1·(1/2) ≥ 2 → c1 ≥ 1.9.
    expect(s!.minimum).toBe(1.9);
    expect(scheduleShortfalls({ c0: 2.1, c1: 1.9, overhead: 0 }, step, 30)).toEqual([]);
  });

  it('rejects c0 below 1/(β(1 − overhead)) at an empty buffer, naming the parameter and the minimum', () => {
    const min = minimumMultiplier(0.7, 0.05);
    expect(min).toBeCloseTo(1.5038, 3);
    const e = refusal(() => resolveParameters({ c0: 1.4 }));
    expect(e.parameter).toBe('c0');
    expect(e.shortfall).toMatchObject({ bufferLevelSeconds: 0, minimum: 1.51 });
    expect(e.message).toMatch(/c0 = 1.4 cannot sustain the top rung with beta = 0.7 .* at an empty buffer.*c0 must be at least 1\.51/);
    expect(() => resolveParameters({ ...PRESETS.bufferAware, beta: 0.3 })).toThrow(/c1 = 1.25 cannot sustain the top rung with beta = 0.3/);
    expect(() => resolveParameters({ ...PRESETS.paper, beta: 0.2 })).toThrow(/c0 = 3.2 cannot sustain the top rung with beta = 0.2/);
  });

  it('accepts exactly the lines that clear Eq. 1 and the step-up floor at every buffer level (1 000 levels, 2 000 random sets)', () => {
    let seed = 17;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    let accepted = 0;
    for (let i = 0; i < 2000; i++) {
      const p: SammyParameters = {
        ...DEFAULT_PARAMETERS,
        beta: 0.4 + 0.6 * random(),
        lookaheadSeconds: 2 + 40 * random(),
        stepUpFactor: random() < 0.3 ? 0 : 1 + 0.4 * random(),
        fullBufferShare: 0.2 + 0.8 * random(),
        fullBufferMaxSeconds: random() < 0.3 ? Infinity : 3 + 30 * random(),
        c0: 0.8 + 3 * random(),
        c1: 0.5 + 2.5 * random(),
      };
      const full = Math.min(30 * p.fullBufferShare, p.fullBufferMaxSeconds);
      let clears = true;
      for (let k = 0; k <= 1000; k++) {
        const b = (full * k) / 1000;
        const need = Math.max(1 / p.beta / (1 + b / p.lookaheadSeconds), p.stepUpFactor, 1) / (1 - p.overhead);
        if (paceMultiplier(k / 1000, p.c0, p.c1) < need - 1e-9) clears = false;
      }
      let ok = true;
      try {
        resolveParameters(p, DEFAULT_PARAMETERS, undefined, 30);
      } catch (e) {
        expect(e).toBeInstanceOf(SammyConfigError);
        ok = false;
        // The minimum it names clears the line (c0 first, then c1).
        const s = (e as SammyConfigError).shortfall!;
        const fixed = { ...p, [(e as SammyConfigError).parameter]: s.minimum };
        if ((e as SammyConfigError).parameter === 'c0') continue;
        expect(() => resolveParameters(fixed, DEFAULT_PARAMETERS, undefined, 30), JSON.stringify(fixed)).not.toThrow();
      }
      expect(ok, JSON.stringify(p)).toBe(clears);
      if (ok) accepted++;
    }
    expect(accepted).toBeGreaterThan(300);
  });

  it('checks Sammy’s own rule exactly as the general check of its requirement would (full mode bundles only the special case)', () => {
    const base = { lookaheadSeconds: 20, stepUpFactor: 1.1 };
    const sets = [
      { ...base, beta: 0.7, overhead: 0.05, c0: 3.2, c1: 1.25 },
      { ...base, beta: 0.7, overhead: 0.05, c0: 1.2, c1: 1.4 },
      { ...base, beta: 0.3, overhead: 0.05, c0: 3.2, c1: 2.8 },
      { ...base, beta: 0.9, overhead: 0, c0: 1.11, c1: 1.12, stepUpFactor: 0 },
      { ...base, beta: 0.7, overhead: 0.05, c0: 1.5037593984962405, c1: 1.1, lookaheadSeconds: 5 },
    ];
    for (const p of sets) {
      for (const full of [3.2, 10, 24, 30, Infinity]) {
        const strip = (list: ReturnType<typeof paceShortfalls>) =>
          list.map(({ requirement, ...rest }) => ({ ...rest, rule: requirement.rule }));
        expect(strip(sammyRuleShortfalls(p, full)), JSON.stringify(p)).toEqual(strip(paceShortfalls(p, [sammyRuleRequirement(p)], full)));
      }
    }
    expect(sammyRuleShortfalls(sets[1]!, 30).map((s) => [s.parameter, s.minimum])).toEqual([['c0', 1.51]]);
    expect(sammyRuleShortfalls({ ...sets[1]!, c1: 1 }, 30).map((s) => [s.parameter, s.minimum])).toEqual([
      ['c0', 1.51],
      ['c1', 1.16],
    ]);
  });

  it('rejects values that are not numbers in range, and an unknown pace base', () => {
    for (const bad of [
      { beta: 0 },
      { beta: 1.5 },
      { c0: NaN },
      { c1: -1 },
      { overhead: 0.9 },
      { lookaheadSeconds: 0 },
      { stepUpFactor: -1 },
      { fullBufferShare: 0 },
      { fullBufferShare: 1.5 },
      { fullBufferMaxSeconds: 0 },
      { fullBufferMaxSeconds: -5 },
      { fullBufferMaxSeconds: NaN },
    ] as const) {
      expect(() => resolveParameters(bad), JSON.stringify(bad)).toThrow(SammyConfigError);
    }
    expect(() => resolveParameters({ c0: '3' as unknown as number })).toThrow(/c0 must be a number/);
    expect(() => resolveParameters({ paceBase: 'rung' as never })).toThrow(/paceBase must be 'top' or 'next-rung'/);
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

  it('bounds a sample list', () => {
    expect(appendBounded([1, 2, 3], 4, 3)).toEqual([2, 3, 4]);
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

/** The session core as an adapter drives it: one decision per request, from the inputs it used. */
import { describe, expect, it } from 'vitest';
import {
  createSession,
  DEFAULT_PARAMETERS,
  memoryStore,
  PRESETS,
  SammyConfigError,
  type PlayerAbr,
  type SammyDecision,
  type SegmentRequest,
} from '../src/index.js';
import { paceShortfalls, playerAbrOf } from '../src/policy/pace-requirements.js';

const LADDER = [300, 750, 1500, 3000, 6000];

function request(overrides: Partial<SegmentRequest> = {}, buffer = 12): SegmentRequest {
  return {
    mediaType: 'video',
    bitrateKbps: 3000,
    url: '/media/seg-3.m4s',
    tracks: { video: { ladderTopKbps: 6000, bufferLevelSeconds: buffer }, audio: { ladderTopKbps: 128, bufferLevelSeconds: buffer + 2 } },
    bufferTargetSeconds: 30,
    ...overrides,
  };
}

describe('SammySession', () => {
  it('keeps every tunable with its default in one place', () => {
    expect(DEFAULT_PARAMETERS).toEqual({
      c0: 4,
      c1: 1.25,
      fullBufferShare: 0.5,
      fullBufferMaxSeconds: 15,
      paceBase: 'next-rung',
      stepUpFactor: 1.1,
      probeInterval: 3,
      capacityShare: 0.8,
      linkShare: 0,
      beta: 0.7,
      lookaheadSeconds: 20,
      overhead: 0.05,
      throughputWindow: 5,
      sessionSampleLimit: 20,
      historyLimit: 20,
      initialVideoBitrateKbps: 1000,
    });
    expect(() => createSession({ parameters: { throughputWindow: 0 } })).toThrow(SammyConfigError);
    expect(() => createSession({ parameters: { initialVideoBitrateKbps: -1 } })).toThrow(/initialVideoBitrateKbps/);
  });

  it('paces nothing in the initial phase, then multiplier × (top video + top audio) from the lower buffer (PRESETS.paper)', () => {
    const s = createSession({ initialHistory: memoryStore(), parameters: PRESETS.paper });
    expect(s.decide(request())).toMatchObject({ phase: 'initial', paceRateKbps: undefined });
    s.playback({ type: 'playing' });
    const d = s.decide(request());
    // B = 12/30 (video, the lower buffer) → 2.8·0.4 + 3.2·0.6 = 3.04; × 6128 = 18 629 → 18 600.
    expect(d).toMatchObject({
      phase: 'playing',
      paceRateKbps: 18_600,
      paceBufferLevelSeconds: 12,
      topVideoBitrateKbps: 6000,
      paceBaseKbps: 6128,
      bufferTargetSeconds: 30,
    });
    // Audio requests carry the same pace: one pace per connection.
    expect(s.decide(request({ mediaType: 'audio', bitrateKbps: 128 })).paceRateKbps).toBe(18_600);
    // A muxed stream (video only) paces on the video top alone.
    expect(s.decide(request({ tracks: { video: { ladderTopKbps: 6000, bufferLevelSeconds: 30 } } })).paceRateKbps).toBe(16_800);
  });

  it('counts the buffer full at half the player’s target and 15 s at most (fullBufferMaxSeconds): a 240 s target paces at c1 from 15 s, as a 30 s one', () => {
    for (const bufferTargetSeconds of [30, 240]) {
      const s = createSession({ initialHistory: memoryStore(), bufferTargetSeconds });
      s.playback({ type: 'playing' });
      const top = (buffer: number) => request({ bitrateKbps: 6000, bufferTargetSeconds }, buffer);
      // 1.25 × 6128 = 7660 → 7700 at 15 s and above; at 7.5 s (half of 15) (4 + 1.25) / 2 × 6128 = 16 086 → 16 100.
      expect(s.decide(top(15)).paceRateKbps, `${bufferTargetSeconds} s`).toBe(7700);
      expect(s.decide(top(100)).paceRateKbps, `${bufferTargetSeconds} s`).toBe(7700);
      expect(s.decide(top(7.5)).paceRateKbps, `${bufferTargetSeconds} s`).toBe(16_100);
    }
    // The paper's design counts it full at the player's target (fullBufferMaxSeconds Infinity).
    const paper = createSession({ initialHistory: memoryStore(), bufferTargetSeconds: 240, parameters: PRESETS.paper });
    paper.playback({ type: 'playing' });
    // B = 120/240 → 3.0 × 6128 = 18 384 → 18 400.
    expect(paper.decide(request({ bufferTargetSeconds: 240 }, 120)).paceRateKbps).toBe(18_400);
  });

  it('learns the segment duration from its downloads: a step up must survive the refetch it makes the player do', () => {
    const s = createSession({ parameters: PRESETS.bufferAware, initialHistory: memoryStore() });
    s.playback({ type: 'playing' });
    const ladderKbps = [300, 750, 1500, 2300, 3300];
    const top = { tracks: { video: { ladderTopKbps: 3300, bufferLevelSeconds: 5 } } };
    // 4 s segments at 4000 kbps: the first at the player's start (750 kbps), then 2300 kbps (1 150 000 B).
    for (const bitrateKbps of [750, 2300, 2300, 2300, 2300]) {
      // (At 3.4 s Eq. 1 allows 2300 from 4000 kbps, 0.7 × 4000 × 1.17 = 3276, and so does the low-buffer guard, 0.7 × 4000 × 3.4 / 4 = 2380.)
      expect(s.chooseBitrate({ mediaType: 'video', ladderKbps, bufferLevelSeconds: 3.4 })?.bitrateKbps).toBe(bitrateKbps);
      const bytes = (bitrateKbps * 1000 * 4) / 8;
      s.addSample(s.decide(request({ ...top, bitrateKbps })), { bytes, durationMs: (bytes * 8) / 4000 });
    }
    const at = (bufferLevelSeconds: number, stepUpRefetchSeconds?: number) =>
      s.chooseBitrate({ mediaType: 'video', ladderKbps, bufferLevelSeconds, stepUpRefetchSeconds })?.bitrateKbps;
    // With dash.js's fast switching (a step up refetches the buffer) not at 8.3 s, at 24 s; a player that refetches nothing: at 8.3 s.
    expect(at(8.3, 1.5)).toBe(2300);
    // At 24 s the refetch leaves 4.2 s, too little for the low-buffer guard (0.7 × 4000 × 4.2 / 4 = 2940): at 28 s, 4.9 s.
    expect(at(24, 1.5)).toBe(2300);
    expect(at(28, 1.5)).toBe(3300);
    expect(at(8.3)).toBe(3300);
  });

  it('applies the low-buffer guard from its first video download, which tells the segment’s duration', () => {
    const s = createSession({ parameters: { stepUpFactor: 0 }, initialHistory: memoryStore([3000]) });
    const ladderKbps = [300, 750, 1500, 2300, 3300];
    const pick = () => s.chooseBitrate({ mediaType: 'video', ladderKbps, bufferLevelSeconds: 2 })!.bitrateKbps;
    // From the history (3000 kbps), no segment duration yet: Eq. 1 at 2 s, 0.7 × 3000 × 1.1 = 2310.
    expect(pick()).toBe(2300);
    const bytes = (2300 * 1000 * 4) / 8;
    s.addSample(s.decide(request({ bitrateKbps: 2300, tracks: { video: { ladderTopKbps: 3300, bufferLevelSeconds: 2 } } }, 2)), {
      bytes,
      durationMs: (bytes * 8) / 3000,
    });
    // 4 s segments: the guard allows 0.7 × 3000 × 2 / 4 = 1050.
    expect(pick()).toBe(750);
  });

  it('reports the buffer and estimate the bitrate choice used, not values read later', () => {
    const s = createSession({ initialHistory: memoryStore([20_000]) });
    const choice = s.chooseBitrate({ mediaType: 'video', ladderKbps: LADDER, bufferLevelSeconds: 4 })!;
    // β·x·(1 + B/D) = 0.7·20 000·1.2 = 16 800 → 6000.
    expect(choice).toMatchObject({ bitrateKbps: 6000, estimateKbps: 20_000, bufferLevelSeconds: 4, phase: 'initial' });
    const d = s.decide(request({ bitrateKbps: 6000 }, 9));
    expect(d).toMatchObject({ bitrateKbps: 6000, bufferLevelSeconds: 4, estimateKbps: 20_000, paceBufferLevelSeconds: 9 });
    // A bitrate the choice did not pick (the player's own): the estimate and buffer of now.
    expect(s.decide(request({ bitrateKbps: 750 }, 9))).toMatchObject({ bufferLevelSeconds: 9, estimateKbps: 20_000 });
  });

  it('starts from the player’s own initial bitrate with no history, from β × history with one', () => {
    const cold = createSession({ initialHistory: memoryStore() });
    expect(cold.startBitrateKbps()).toBe(1000);
    expect(cold.chooseBitrate({ mediaType: 'video', ladderKbps: LADDER, bufferLevelSeconds: 0 })).toMatchObject({
      bitrateKbps: 750,
      estimateKbps: undefined,
    });
    // Audio has no such default: the lowest rung until measured (dash.js starts audio at 100 kbps).
    expect(cold.chooseBitrate({ mediaType: 'audio', ladderKbps: [64, 128], bufferLevelSeconds: 0 })!.bitrateKbps).toBe(64);
    const warm = createSession({ initialHistory: memoryStore([10_000]) });
    expect(warm.startBitrateKbps()).toBe(7000);
    expect(warm.chooseBitrate({ mediaType: 'video', ladderKbps: LADDER, bufferLevelSeconds: 0 })!.bitrateKbps).toBe(6000);
  });

  it('learns per media type, and keeps only unpaced initial-phase video in the history', () => {
    const store = memoryStore();
    const s = createSession({ initialHistory: store, parameters: PRESETS.paper });
    const samples: number[] = [];
    s.on('sample', (x) => samples.push(x.throughputKbps));
    s.addSample(s.decide(request()), { bytes: 1_000_000, durationMs: 400 }); // 20 Mbps, initial
    s.addSample(s.decide(request({ mediaType: 'audio', bitrateKbps: 128 })), { bytes: 64_000, durationMs: 200 }); // audio
    s.playback({ type: 'playing' });
    const paced = s.decide(request());
    expect(s.addSample(paced, { bytes: 1_000_000, durationMs: 800 })).toMatchObject({
      phase: 'playing',
      paceRateKbps: 18_600,
      throughputKbps: 10_000,
    });
    expect(samples).toEqual([20_000, 2_560, 10_000]);
    expect(s.estimateKbps('video')).toBeCloseTo(13_333, 0);
    expect(s.estimateKbps('audio')).toBeCloseTo(2_560, 0);
    expect(store.load()).toEqual([20_000]);
    // Nothing measured: ignored.
    expect(s.addSample(paced, { bytes: 0, durationMs: 10 })).toBeUndefined();
    expect(samples).toHaveLength(3);
  });

  it('starts estimates afresh on a new source, keeping the history', () => {
    const s = createSession({ initialHistory: memoryStore() });
    s.addSample(s.decide(request()), { bytes: 1_000_000, durationMs: 400 });
    s.playback({ type: 'playing' });
    expect(s.estimateKbps('video')).toBe(20_000);
    s.playback({ type: 'load' });
    expect(s.phase).toBe('initial');
    expect(s.estimateKbps('video')).toBe(20_000); // initial phase: the history
    s.playback({ type: 'playing' });
    expect(s.estimateKbps('video')).toBeUndefined();
  });

  it('emits phase changes only, and one decision per request', () => {
    const s = createSession({ initialHistory: memoryStore() });
    const phases: string[] = [];
    const decisions: SammyDecision[] = [];
    s.on('phase', (p) => phases.push(p));
    const off = s.on('decision', (d) => decisions.push(d));
    for (const type of ['load', 'playing', 'playing', 'seeking', 'seeked', 'waiting', 'playing'] as const) s.playback({ type });
    expect(phases).toEqual(['playing', 'initial', 'playing']);
    s.decide(request());
    off();
    s.decide(request());
    expect(decisions).toHaveLength(1);
  });

  it('off: no choice and no pace, decisions say so; update validates and keeps the old set', () => {
    const s = createSession({ initialHistory: memoryStore(), enabled: false, parameters: PRESETS.paper });
    s.playback({ type: 'playing' });
    expect(s.chooseBitrate({ mediaType: 'video', ladderKbps: LADDER, bufferLevelSeconds: 0 })).toBeUndefined();
    expect(s.decide(request())).toMatchObject({ enabled: false, paceRateKbps: undefined });
    s.setEnabled(true);
    s.update({ c0: 4 });
    expect(s.decide(request({}, 0)).paceRateKbps).toBe(24_500);
    expect(() => s.update({ c1: 1 })).toThrow(SammyConfigError);
    expect(s.parameters).toMatchObject({ c0: 4, c1: 2.8 });
  });

  it('the defaults (PRESETS.bufferAware): pace the rung fetched at the top of the ladder the rule sees, the next rung up below it (at c0), c1 from half the full level', () => {
    const s = createSession({ initialHistory: memoryStore([20_000]), bufferTargetSeconds: 30 });
    s.playback({ type: 'playing' });
    // No bitrate choice yet (no ladder known): the top, as the paper. B = 12 / (0.5 × 30) = 0.8 → 1.8 × 6128 = 11 030.
    expect(s.decide(request())).toMatchObject({ paceRateKbps: 11_000, paceBaseKbps: 6128, bufferTargetSeconds: 30 });
    s.chooseBitrate({ mediaType: 'video', ladderKbps: LADDER, bufferLevelSeconds: 12 });
    // Fetching 3000 below the top: the next rung up (6000) + audio, at c0 whatever the buffer.
    expect(s.decide(request({}, 28))).toMatchObject({ paceRateKbps: 24_500, paceBaseKbps: 6128 });
    expect(s.decide(request({ bitrateKbps: 750 }, 28))).toMatchObject({ paceRateKbps: 6_500, paceBaseKbps: 1628 }); // 4 × 1628
    // Audio goes by the last video request.
    expect(s.decide(request({ mediaType: 'audio', bitrateKbps: 128 }, 28)).paceRateKbps).toBe(6_500);
    // At the top: 1.25 × 6128 from 15 s of buffer on.
    expect(s.decide(request({ bitrateKbps: 6000 }, 15))).toMatchObject({ paceRateKbps: 7_700, paceBaseKbps: 6128 });
    // A ladder the player caps at 3000 (the one the rule sees): the top of it is the rung fetched.
    s.chooseBitrate({ mediaType: 'video', ladderKbps: [300, 750, 1500, 3000], bufferLevelSeconds: 12 });
    expect(s.decide(request({ bitrateKbps: 3000 }, 28))).toMatchObject({ paceRateKbps: 3_900, paceBaseKbps: 3128 }); // 1.25 × 3128
    // The adapter's own ladder in the request wins over the one the rule saw.
    const tracks = {
      video: { ladderTopKbps: 6000, ladderKbps: LADDER, bufferLevelSeconds: 28 },
      audio: { ladderTopKbps: 128, bufferLevelSeconds: 28 },
    };
    expect(s.decide(request({ bitrateKbps: 3000, tracks }, 28)).paceBaseKbps).toBe(6128);
  });

  it('probes the link every probeInterval video segments and holds the others at a share of its capacity, above the floor that keeps the rung', () => {
    const s = createSession({ initialHistory: memoryStore(), bufferTargetSeconds: 30 });
    s.playback({ type: 'playing' });
    const ladderKbps = [300, 750, 1500, 2300, 3300];
    const at = (buffer: number, overrides: Partial<SegmentRequest> = {}) =>
      s.decide(
        request(
          {
            bitrateKbps: 2300,
            tracks: {
              video: { ladderTopKbps: 3300, ladderKbps, bufferLevelSeconds: buffer },
              audio: { ladderTopKbps: 128, bufferLevelSeconds: buffer },
            },
            ...overrides,
          },
          buffer,
        ),
      );
    const fetch = (d: SammyDecision, kbps: number) =>
      s.addSample(d, { bytes: (2300 * 1000 * 4) / 8, durationMs: (2300 * 4 * 1000) / kbps });
    // No probe yet: the schedule (below the top: c0 × (3300 + 128) = 13 712).
    const first = at(12);
    expect(first).toMatchObject({ paceRateKbps: 13_700, held: false });
    // It measured the link (4000 kbps, below 80% of its pace): what follows is held at
    // 0.8 × 4000 / (1 − 0.05) = 3368 → 3400. The link carries the next rung (4000 ≥ 1.1 × 3300:
    // only the buffer can hold a step up back), so probes go at twice the interval: four held, then a probe.
    fetch(first, 4000);
    expect([at(12), at(12), at(12), at(12), at(12)].map((d) => [d.paceRateKbps, d.held])).toEqual([
      [3400, true],
      [3400, true],
      [3400, true],
      [3400, true],
      [13_700, false],
    ]);
    // Audio never probes: held while video is between probes, too.
    expect(at(12, { mediaType: 'audio', bitrateKbps: 128 })).toMatchObject({ paceRateKbps: 3400, held: true });
    // Below two thirds of the full level (15 s: 10 s) nothing is held: a stall is near.
    expect(at(9.9)).toMatchObject({ paceRateKbps: 13_700, held: false });
    // A held segment the link held back (below 80% of its pace): the held pace follows the link down
    // (harmonic mean of 4000 and 2600, × 0.8 / 0.95 = 2655), not below the floor that keeps 2300 at
    // 12 s of buffer, max(Eq. 1, 1) / 0.95 × 2428 = 2556 → 2700; no probe into the dip, but no longer
    // spaced out (with the link below the next rung, at the interval: only a probe can see it rise).
    fetch(at(12), 2600);
    const [held, probe] = [at(12), at(12)];
    expect([held.paceRateKbps, held.held, probe.held]).toEqual([2700, true, false]);
    // It finds a link far below the next rung: the held ones at the floor.
    fetch(probe, 1000);
    expect([at(12), at(12), at(12)].map((d) => [d.paceRateKbps, d.held])).toEqual([
      [2600, true],
      [2600, true],
      [13_700, false],
    ]);
    // A probe held back by its own pace (the link is faster) says nothing of the capacity: nothing is held.
    expect([at(12).held, at(12).held]).toEqual([true, true]);
    fetch(at(12), 13_000);
    expect(at(12)).toMatchObject({ paceRateKbps: 13_700, held: false });
    // The estimate a step up goes by is the probes' alone: held samples measure their pace.
    const t = createSession({ initialHistory: memoryStore(), bufferTargetSeconds: 30 });
    t.playback({ type: 'playing' });
    const decide = (buffer: number) =>
      t.decide(
        request(
          {
            bitrateKbps: 2300,
            tracks: {
              video: { ladderTopKbps: 3300, ladderKbps, bufferLevelSeconds: buffer },
              audio: { ladderTopKbps: 128, bufferLevelSeconds: buffer },
            },
          },
          buffer,
        ),
      );
    t.chooseBitrate({ mediaType: 'video', ladderKbps, bufferLevelSeconds: 0 });
    for (let i = 0; i < 6; i++) {
      const d = decide(12);
      t.addSample(d, { bytes: (2300 * 1000 * 4) / 8, durationMs: (2300 * 4 * 1000) / (d.held ? 3700 : 4000) });
    }
    // Every sample at 3700 would refuse 3300 (1.1 × 3300 = 3630 ≤ 3700, but the probes say 4000 — and with them, it steps up).
    expect(t.chooseBitrate({ mediaType: 'video', ladderKbps, bufferLevelSeconds: 12 })?.bitrateKbps).toBe(3300);
    // A step up that makes the player refetch its buffer (12 s of 4 s segments: 3) leaves those and the next unheld.
    const u = createSession({ initialHistory: memoryStore(), bufferTargetSeconds: 30 });
    u.playback({ type: 'playing' });
    const go = (buffer: number) =>
      u.decide(
        request(
          {
            bitrateKbps: 2300,
            tracks: {
              video: { ladderTopKbps: 3300, ladderKbps, bufferLevelSeconds: buffer },
              audio: { ladderTopKbps: 128, bufferLevelSeconds: buffer },
            },
          },
          buffer,
        ),
      );
    u.chooseBitrate({ mediaType: 'video', ladderKbps, bufferLevelSeconds: 0 });
    for (let i = 0; i < 4; i++) u.addSample(go(20), { bytes: (2300 * 1000 * 4) / 8, durationMs: (2300 * 4 * 1000) / 6000 });
    expect(go(20).held).toBe(true);
    expect(u.chooseBitrate({ mediaType: 'video', ladderKbps, bufferLevelSeconds: 12, stepUpRefetchSeconds: 1.5 })?.bitrateKbps).toBe(3300);
    // The first refetch, at the top: the link's rate as the probes measured it capping the downloads (6000 / 0.95
    // = 6316), above the schedule's (1 − 0.8) × 4 + 0.8 × 1.25 = 1.8 × 3428 = 6170: the viewer waits on the rung
    // below. It measures its pace, as a held segment does (issue 39: no faster, a pace above the link only queues).
    const refetch = u.decide(
      request(
        {
          bitrateKbps: 3300,
          tracks: {
            video: { ladderTopKbps: 3300, ladderKbps, bufferLevelSeconds: 12 },
            audio: { ladderTopKbps: 128, bufferLevelSeconds: 12 },
          },
        },
        12,
      ),
    );
    expect(refetch).toMatchObject({ paceRateKbps: 6300, held: true });
    // The other refetches and the one after at the link's rate; then held at 0.8 of it (0.8 × 6000 / 0.95 = 5053).
    expect([go(12), go(12), go(12), go(12)].map((d) => d.paceRateKbps)).toEqual([6300, 6300, 6300, 5100]);
  });

  it('refuses probing in pace-only mode: the player’s own ABR would measure the held segments', () => {
    const playerAbr: PlayerAbr = playerAbrOf('test', 0.9, [], 30);
    expect(() => createSession({ playerAbr, parameters: { probeInterval: 3 } })).toThrow(
      /probeInterval must be 1 in pace-only mode: test's own ABR/,
    );
    expect(createSession({ playerAbr }).parameters.probeInterval).toBe(1);
    expect(() => createSession({ parameters: { probeInterval: 0 } })).toThrow(/probeInterval must be a whole number from 1/);
    expect(() => createSession({ parameters: { capacityShare: 1.2 } })).toThrow(/capacityShare/);
  });

  it('never paces as if the buffer were full below the level it validated at; pace-only starts from the paper’s', () => {
    const s = createSession({ initialHistory: memoryStore(), bufferTargetSeconds: 30 });
    s.playback({ type: 'playing' });
    // A request that counts 10 s as full is held to the 30 s validated: 10 / 15 of the way to c1.
    expect(s.decide(request({ bufferTargetSeconds: 10 }, 10))).toMatchObject({
      bufferTargetSeconds: 30,
      paceRateKbps: Math.round((((10 / 15) * 1.25 + (5 / 15) * 4) * 6128) / 100) * 100,
    });
    // PRESETS.paper likewise, on its line: 10 / 30 of the way from 3.2 to 2.8 (3.067 × 6128 = 18 792).
    const paper = createSession({ initialHistory: memoryStore(), bufferTargetSeconds: 30, parameters: PRESETS.paper });
    paper.playback({ type: 'playing' });
    expect(paper.decide(request({ bufferTargetSeconds: 10 }, 10))).toMatchObject({ bufferTargetSeconds: 30, paceRateKbps: 18_800 });
    // A request's own level at or above the one validated is the pace's: as an adapter that passes its player's target to both.
    expect(paper.decide(request({ bufferTargetSeconds: 30 }, 10))).toMatchObject({ bufferTargetSeconds: 30, paceRateKbps: 18_800 });
    expect(paper.decide(request({ bufferTargetSeconds: 60 }, 30))).toMatchObject({ bufferTargetSeconds: 60, paceRateKbps: 18_400 }); // 3.0 × 6128
    // Validated at a small full level, a c1 that relies on a deep buffer is refused: with stepUpFactor 0
    // and the 3.2 s full buffer of the public prototype, Eq. 1 needs 1 / (0.7 × 1.16) / 0.95 = 1.30.
    expect(() => createSession({ parameters: { ...PRESETS.paper, c1: 1.2 }, bufferTargetSeconds: 3.2 })).toThrow(
      /c1 must be at least 1.3\b/,
    );
    expect(() => createSession({ parameters: { ...PRESETS.paper, c1: 1.2 }, bufferTargetSeconds: 30 })).not.toThrow();
    const playerAbr: PlayerAbr = {
      name: 'test',
      requirements: [
        { rule: 'under a test rule', reason: 'test', throughputMultiple: 1.2, fromBufferSeconds: 0, toBufferSeconds: Infinity },
      ],
      bufferTargetSeconds: 30,
      safetyFactor: 0.9,
      check: paceShortfalls,
      pace: PRESETS.paper,
    };
    expect(createSession({ playerAbr }).parameters).toEqual({ ...DEFAULT_PARAMETERS, ...PRESETS.paper });
    expect(createSession({ playerAbr, parameters: { c1: 1.3 } }).parameters).toMatchObject({ c0: 3.2, c1: 1.3, paceBase: 'top' });
  });
});

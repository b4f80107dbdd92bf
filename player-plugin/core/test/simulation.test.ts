import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMETERS, PRESETS } from '../src/config.js';
import { resolveParameters, SammyConfigError } from '../src/policy/parameters.js';
import { qoe } from './support/qoe.js';
import {
  dashBuiltInRtpRule,
  DEFAULT_SIMULATION,
  median,
  sammyRule,
  simulateSession,
  type SimulatedRule,
} from './support/session-simulator.js';

const TOP = 6000;
const steady = (r: ReturnType<typeof simulateSession>) => r.segments.filter((s) => s.index >= 15);

/** The defaults (issue 17's lower pace, PRESETS.bufferAware) and the paper's design. */
const SETS = [
  ['defaults (PRESETS.bufferAware)', DEFAULT_PARAMETERS],
  ['PRESETS.paper', PRESETS.paper],
] as const;

describe('closed-loop session with Sammy’s defaults (PRESETS.bufferAware) and PRESETS.paper', () => {
  for (const [name, parameters] of SETS) {
    for (const multiple of [2, 4, 20]) {
      it(`${name}: reaches and holds the top rung with no stall on a link of ${multiple}× the top bitrate`, () => {
        const result = simulateSession(sammyRule(parameters), { ...DEFAULT_SIMULATION, linkKbps: multiple * TOP });
        expect(result.stalls).toBe(0);
        const firstTop = result.segments.findIndex((s) => s.bitrateKbps === TOP);
        expect(firstTop).toBeGreaterThanOrEqual(0);
        expect(firstTop).toBeLessThanOrEqual(3);
        expect(result.segments.slice(firstTop).every((s) => s.bitrateKbps === TOP)).toBe(true);
        // Nothing is paced before playback starts.
        expect(result.segments.filter((s) => s.phase === 'initial').every((s) => s.paceKbps === undefined)).toBe(true);
      });
    }
  }

  for (const [name, parameters] of SETS) {
    for (const multiple of [4, 20]) {
      it(`${name}: keeps chunk throughput near c1 × top, well below a ${multiple}× link, once the buffer is full`, () => {
        const link = multiple * TOP;
        const result = simulateSession(sammyRule(parameters), { ...DEFAULT_SIMULATION, linkKbps: link });
        const full = steady(result).filter(
          (s) => s.bufferBeforeSeconds >= DEFAULT_SIMULATION.bufferTargetSeconds - DEFAULT_SIMULATION.segmentSeconds - 0.01,
        );
        expect(full.length).toBeGreaterThan(30);
        const chunk = median(full.map((s) => s.throughputKbps));
        const expected = parameters.c1 * (TOP + DEFAULT_SIMULATION.audioKbps) * (1 - DEFAULT_SIMULATION.wireOverhead);
        expect(chunk / expected).toBeGreaterThan(0.9);
        expect(chunk / expected).toBeLessThan(1.05);
        expect(chunk / link).toBeLessThan(multiple === 4 ? 0.75 : 0.2);
      });
    }
  }

  it('does not pace a link that is below the pace: throughput follows the link (2× with the paper’s 2.8, 1.2× with the defaults’ 1.25)', () => {
    for (const [parameters, multiple] of [
      [PRESETS.paper, 2],
      [DEFAULT_PARAMETERS, 1.2],
    ] as const) {
      const result = simulateSession(sammyRule(parameters), { ...DEFAULT_SIMULATION, linkKbps: multiple * TOP });
      const chunk = median(steady(result).map((s) => s.throughputKbps));
      expect(chunk).toBeGreaterThan(0.9 * multiple * TOP * (1 - DEFAULT_SIMULATION.wireOverhead));
    }
  });

  it('the defaults pace below a 1.5× link once the buffer is deep: the bottleneck idles between packets', () => {
    const link = 1.5 * TOP;
    const result = simulateSession(sammyRule(DEFAULT_PARAMETERS), { ...DEFAULT_SIMULATION, linkKbps: link });
    const paced = steady(result).filter((s) => s.paceKbps !== undefined && s.paceKbps < link);
    expect(paced.length / steady(result).length).toBeGreaterThan(0.9);
    expect(result.segments.slice(3).every((s) => s.bitrateKbps === TOP)).toBe(true);
    expect(result.stalls).toBe(0);
  });

  it('uses initial-phase history for its first pick, and the player’s own start (1000 kbps) without one', () => {
    const cold = simulateSession(sammyRule(DEFAULT_PARAMETERS), { ...DEFAULT_SIMULATION, linkKbps: 20 * TOP });
    const warm = simulateSession(sammyRule(DEFAULT_PARAMETERS), {
      ...DEFAULT_SIMULATION,
      linkKbps: 20 * TOP,
      initialHistoryKbps: [100_000, 90_000],
    });
    // dash.js starts at the highest rung ≤ its DEFAULT_VIDEO_BITRATE (1000 kbps): 750, not the lowest (300).
    expect(cold.segments[0]!.bitrateKbps).toBe(750);
    expect(warm.segments[0]!.bitrateKbps).toBe(TOP);
    const lowStart = simulateSession(sammyRule({ initialVideoBitrateKbps: 200 }), { ...DEFAULT_SIMULATION, linkKbps: 20 * TOP });
    expect(lowStart.segments[0]!.bitrateKbps).toBe(300);
  });
});

describe('dash.js’s fast switching (on by default): a step up refetches the buffer', () => {
  // Three 750 kbps segments, then 3000 kbps: the step up at 11.3 s of buffer refetches the three buffered segments.
  const scripted: SimulatedRule = () => {
    let requests = 0;
    return {
      request: (_buffer, playing) => ({
        bitrateKbps: requests++ < 3 ? 750 : 3000,
        rtpKbps: undefined,
        phase: playing ? 'playing' : 'initial',
      }),
      downloaded() {},
      playback() {},
    };
  };

  it('the viewer is counted with what plays: a refetch replaces what of its segment is still to play when it arrives', () => {
    const config = { ...DEFAULT_SIMULATION, linkKbps: 10_000, segments: 8, fastSwitch: true };
    const result = simulateSession(scripted, config);
    expect(result.segments.map((s) => [s.mediaIndex, s.refetch])).toEqual([
      [0, false],
      [1, false],
      [2, false],
      [0, true],
      [1, true],
      [2, true],
      [3, false],
      [4, false],
    ]);
    // The first refetch arrives 2 s into segment 0 (0.7 s in when it was requested, + 1.29 s of download): its second half plays at 3000.
    const [first, second, third] = result.played;
    expect(first).toHaveLength(2);
    expect(first![1]!.bitrateKbps).toBe(3000);
    expect(first![1]!.fromFraction).toBeCloseTo(0.5, 1);
    expect(second).toEqual([{ fromFraction: 0, bitrateKbps: 3000 }]);
    expect(third).toEqual([{ fromFraction: 0, bitrateKbps: 3000 }]);
    expect(result.played).toHaveLength(5);
    // Five segments played: the first half at 750 and half at 3000, four at 3000; one switch (750 → 3000), not two.
    const q = qoe(result, config);
    expect(q.meanBitrateKbps).toBeCloseTo((750 * first![1]!.fromFraction + 3000 * (1 - first![1]!.fromFraction) + 4 * 3000) / 5, 6);
    expect(q.switches).toBe(1);
  });

  it('without fast switching every download is a segment played whole, in order', () => {
    const result = simulateSession(scripted, { ...DEFAULT_SIMULATION, linkKbps: 10_000, segments: 8 });
    expect(result.segments.every((s, i) => s.mediaIndex === i && !s.refetch)).toBe(true);
    expect(result.played).toEqual(result.segments.map((s) => [{ fromFraction: 0, bitrateKbps: s.bitrateKbps }]));
  });

  // The lab's ladder (finer steps at the top) and the simulation's; links between and above its rungs.
  const LADDERS = [[300, 750, 1500, 2300, 3300], DEFAULT_SIMULATION.videoLadderKbps] as const;
  const MULTIPLES = [0.5, 0.8, 1, 1.1, 1.2, 1.3, 1.5, 2, 4];

  it('the defaults (PRESETS.bufferAware) never stall nor alternate: they step up only where the refetch leaves a buffer that keeps the rung', () => {
    for (const ladder of LADDERS) {
      const top = Math.max(...ladder);
      for (const multiple of MULTIPLES) {
        const config = { ...DEFAULT_SIMULATION, videoLadderKbps: ladder, linkKbps: multiple * top, fastSwitch: true };
        const result = simulateSession(sammyRule(DEFAULT_PARAMETERS), config);
        // On a constant link: no stall, and never a step down (a step up that has to be undone).
        const downs = result.segments.filter((s, i) => i > 0 && s.bitrateKbps < result.segments[i - 1]!.bitrateKbps).length;
        expect(result.stalls, `${top} kbps top, ${multiple}×`).toBe(0);
        expect(downs, `${top} kbps top, ${multiple}×`).toBe(0);
        // From 1.5× it reaches the top rung.
        if (multiple >= 1.5) expect(result.segments.at(-1)!.bitrateKbps).toBe(top);
      }
    }
  });

  it('paces a refetch no faster than the link measured capping the downloads before it (issue 39: 13.7 Mbit/s on a 4.4 Mbit/s link paces nothing)', () => {
    const ladder = [300, 750, 1500, 2300, 3300];
    let refetches = 0;
    for (const multiple of [1.3, 1.5, 2]) {
      const linkKbps = multiple * (3300 + 128);
      const result = simulateSession(sammyRule(DEFAULT_PARAMETERS), {
        ...DEFAULT_SIMULATION,
        videoLadderKbps: ladder,
        linkKbps,
        fastSwitch: true,
        segments: 60,
      });
      for (const s of result.segments.filter((x) => x.refetch && x.phase === 'playing')) {
        refetches += 1;
        // On the wire: the link's rate as measured (chunk throughput / (1 − overhead)) is at most the link's, rounded up to 100.
        expect(s.paceKbps, `${multiple}×, segment ${s.index}`).toBeLessThanOrEqual(linkKbps + 100);
      }
    }
    expect(refetches).toBeGreaterThan(0);
  });

  it('the same preset without the refetch in its step-up check alternates on a link between rungs (what the lab saw; it stalled too before the low-buffer guard)', () => {
    // The rule as if dash.js refetched nothing, on a link where dash.js does: 1.2× the top of the simulation's ladder.
    const unaware = (config: Parameters<ReturnType<typeof sammyRule>>[0]) =>
      sammyRule(DEFAULT_PARAMETERS)({ ...config, fastSwitch: false });
    const link = { ...DEFAULT_SIMULATION, linkKbps: 1.2 * TOP, fastSwitch: true };
    const downs = (r: ReturnType<typeof simulateSession>) =>
      r.segments.filter((s, i) => i > 0 && s.bitrateKbps < r.segments[i - 1]!.bitrateKbps).length;
    // Each step up refetches the buffer, and at the few seconds it leaves the guard steps back down.
    expect(downs(simulateSession(unaware, link))).toBeGreaterThan(5);
    const aware = simulateSession(sammyRule(DEFAULT_PARAMETERS), link);
    expect(aware.stalls).toBe(0);
    expect(downs(aware)).toBe(0);
  });
});

describe('configurations below the Eq. 1 threshold', () => {
  it('are rejected before they can run', () => {
    expect(() => resolveParameters({ c0: 1.3, c1: 1.2 })).toThrow(SammyConfigError);
  });
});

describe('dash.js’s built-in rtp honoured by the server', () => {
  it('spirals down from the top rung on a fast link, which Sammy does not', () => {
    const config = { ...DEFAULT_SIMULATION, linkKbps: 20 * TOP };
    const builtIn = simulateSession(dashBuiltInRtpRule(), config);
    const sammy = simulateSession(sammyRule(DEFAULT_PARAMETERS), config);
    const lastQuarter = (r: typeof builtIn) => r.segments.slice(-Math.floor(r.segments.length / 4));
    const meanBitrate = (r: typeof builtIn) => lastQuarter(r).reduce((s, x) => s + x.bitrateKbps, 0) / lastQuarter(r).length;
    expect(builtIn.segments.some((s) => s.bitrateKbps >= 3000)).toBe(true);
    expect(meanBitrate(builtIn)).toBeLessThanOrEqual(750);
    expect(meanBitrate(sammy)).toBe(TOP);
  });
});

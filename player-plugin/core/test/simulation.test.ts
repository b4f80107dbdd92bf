import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMETERS, PRESETS } from '../src/config.js';
import { resolveParameters, SammyConfigError } from '../src/policy/index.js';
import { dashBuiltInRtpRule, DEFAULT_SIMULATION, median, sammyRule, simulateSession } from './support/session-simulator.js';

const TOP = 6000;
const steady = (r: ReturnType<typeof simulateSession>) => r.segments.filter((s) => s.index >= 15);

/** The defaults (the paper's algorithm) and the opt-in lower pace of issue 17. */
const SETS = [
  ['defaults (the paper’s)', DEFAULT_PARAMETERS],
  ['PRESETS.bufferAware', PRESETS.bufferAware],
] as const;

describe('closed-loop session with Sammy’s defaults (the paper’s) and PRESETS.bufferAware', () => {
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
        const full = steady(result).filter((s) => s.bufferBeforeSeconds >= DEFAULT_SIMULATION.maxBufferSeconds - DEFAULT_SIMULATION.segmentSeconds - 0.01);
        expect(full.length).toBeGreaterThan(30);
        const chunk = median(full.map((s) => s.throughputKbps));
        const expected = parameters.c1 * (TOP + DEFAULT_SIMULATION.audioKbps) * (1 - DEFAULT_SIMULATION.wireOverhead);
        expect(chunk / expected).toBeGreaterThan(0.9);
        expect(chunk / expected).toBeLessThan(1.05);
        expect(chunk / link).toBeLessThan(multiple === 4 ? 0.75 : 0.2);
      });
    }
  }

  it('does not pace a link that is below the pace: throughput follows the link (2× with the defaults’ 2.8, 1.2× with bufferAware’s 1.25)', () => {
    for (const [parameters, multiple] of [[DEFAULT_PARAMETERS, 2], [PRESETS.bufferAware, 1.2]] as const) {
      const result = simulateSession(sammyRule(parameters), { ...DEFAULT_SIMULATION, linkKbps: multiple * TOP });
      const chunk = median(steady(result).map((s) => s.throughputKbps));
      expect(chunk).toBeGreaterThan(0.9 * multiple * TOP * (1 - DEFAULT_SIMULATION.wireOverhead));
    }
  });

  it('bufferAware paces below a 1.5× link once the buffer is deep: the bottleneck idles between packets', () => {
    const link = 1.5 * TOP;
    const result = simulateSession(sammyRule(PRESETS.bufferAware), { ...DEFAULT_SIMULATION, linkKbps: link });
    const paced = steady(result).filter((s) => s.paceKbps !== undefined && s.paceKbps < link);
    expect(paced.length / steady(result).length).toBeGreaterThan(0.9);
    expect(result.segments.slice(3).every((s) => s.bitrateKbps === TOP)).toBe(true);
    expect(result.stalls).toBe(0);
  });

  it('uses initial-phase history for its first pick, and the player’s own start (1000 kbps) without one', () => {
    const cold = simulateSession(sammyRule(DEFAULT_PARAMETERS), { ...DEFAULT_SIMULATION, linkKbps: 20 * TOP });
    const warm = simulateSession(sammyRule(DEFAULT_PARAMETERS), { ...DEFAULT_SIMULATION, linkKbps: 20 * TOP, initialHistoryKbps: [100_000, 90_000] });
    // dash.js starts at the highest rung ≤ its DEFAULT_VIDEO_BITRATE (1000 kbps): 750, not the lowest (300).
    expect(cold.segments[0]!.bitrateKbps).toBe(750);
    expect(warm.segments[0]!.bitrateKbps).toBe(TOP);
    const lowStart = simulateSession(sammyRule({ initialVideoBitrateKbps: 200 }), { ...DEFAULT_SIMULATION, linkKbps: 20 * TOP });
    expect(lowStart.segments[0]!.bitrateKbps).toBe(300);
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

// @vitest-environment happy-dom
/**
 * Closed loop (test/support/closed-loop.ts) with the adapter's configuration, on the real Shaka
 * module: Sammy's mode and pace-only mode over Shaka's real SimpleAbrManager hold the top rung on
 * links of 2×, 4× and 20× the top bitrate; every configuration the validation accepts holds it;
 * a pace below the derived minimum (which the validation refuses) loses it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMETERS, SammyConfigError } from '../src/index.js';
import { paceOnly, shakaAbrRequirements } from '../src/pace-only.js';
import { LOOP_DEFAULTS, runLoop } from './support/closed-loop.js';
import { TOP_KBPS } from './support/player.js';

const TOP = TOP_KBPS;
/** Segments after which the top rung must have been reached (Shaka's ABR: 128 kB of samples, then its 8 s switch interval). */
const REACH = 4;

function expectTopHeld(video: number[]): void {
  const firstTop = video.indexOf(TOP);
  expect(firstTop, `video bitrates ${video.join(' ')}`).toBeGreaterThanOrEqual(0);
  expect(firstTop, `video bitrates ${video.join(' ')}`).toBeLessThanOrEqual(REACH);
  expect(video.slice(firstTop), `video bitrates ${video.join(' ')}`).toEqual(video.slice(firstTop).map(() => TOP));
}

describe.each([
  ['Sammy’s mode', {}],
  ['pace-only mode (Shaka’s SimpleAbrManager)', { mode: paceOnly }],
] as const)('%s with the defaults', (_, options) => {
  for (const multiple of [2, 4, 20]) {
    it(`reaches and holds the top rung with no stall on a link of ${multiple}× the top bitrate`, async () => {
      const { segments, stalls, video } = await runLoop(options, { ...LOOP_DEFAULTS, linkKbps: multiple * TOP });
      expect(stalls).toBe(0);
      expectTopHeld(video);
      expect(segments.filter((s) => s.phase === 'initial').every((s) => s.rtpKbps === undefined)).toBe(true);
      expect(segments.filter((s) => s.phase === 'playing').every((s) => s.rtpKbps! >= DEFAULT_PARAMETERS.c1 * (TOP + 128) - 50)).toBe(true);
    });
  }
});

/** The least multiplier pace-only accepts with Shaka's defaults: 1 / (0.95 × (1 − 0.05)) → 1.11. */
const shakaAbr = shakaAbrRequirements(undefined, 10);
const PACE_ONLY_MIN = shakaAbr.check({ c0: 0.01, c1: 0.01, overhead: DEFAULT_PARAMETERS.overhead }, shakaAbr.requirements, 10)[0]!.minimum;

describe('every accepted configuration holds the top rung; what is refused could not', () => {
  it('pace-only’s least multiplier with Shaka’s defaults is 1.11', () => {
    expect(PACE_ONLY_MIN).toBe(1.11);
  });

  const grid = [PACE_ONLY_MIN, 1.3, 2, 3.2];
  for (const c0 of grid) {
    for (const c1 of grid) {
      it(`pace-only, c0 = ${c0}, c1 = ${c1}: accepted, holds the top rung on a 20× link`, async () => {
        const { stalls, video } = await runLoop({ mode: paceOnly, c0, c1 }, { ...LOOP_DEFAULTS, linkKbps: 20 * TOP });
        expect(stalls).toBe(0);
        expectTopHeld(video);
      });
    }
  }

  for (const [c0, c1] of [
    [1.51, 1.51],
    [1.51, 3.2],
    [3.2, 1.51],
  ] as const) {
    it(`Sammy’s mode, c0 = ${c0}, c1 = ${c1} (its least: 1 / (β(1 − overhead))): holds the top rung on a 20× link`, async () => {
      const { stalls, video } = await runLoop({ c0, c1 }, { ...LOOP_DEFAULTS, linkKbps: 20 * TOP });
      expect(stalls).toBe(0);
      expectTopHeld(video);
    });
  }

  it('Shaka counts each response’s latency as download time: at the bare minimum 40 ms per request costs the top rung (one rung, no spiral); the defaults hold it at 200 ms', async () => {
    const bare = await runLoop(
      { mode: paceOnly, c0: PACE_ONLY_MIN, c1: PACE_ONLY_MIN },
      { ...LOOP_DEFAULTS, linkKbps: 20 * TOP, latencyMs: 40 },
    );
    expect(bare.stalls).toBe(0);
    expect(bare.video.slice(-10), `video bitrates ${bare.video.join(' ')}`).toEqual(Array(10).fill(3000));
    const defaults = await runLoop({ mode: paceOnly }, { ...LOOP_DEFAULTS, linkKbps: 20 * TOP, latencyMs: 200 });
    expect(defaults.stalls).toBe(0);
    expectTopHeld(defaults.video);
  });

  it('a pace just below the minimum is refused, and a server pacing there loses Shaka the top rung for good', async () => {
    await expect(runLoop({ mode: paceOnly, c1: 1.1 }, { ...LOOP_DEFAULTS, linkKbps: 20 * TOP })).rejects.toThrow(SammyConfigError);
    // What such a pace does: every playing-phase response at 1.05 × the pace base.
    const { video } = await runLoop({ mode: paceOnly }, { ...LOOP_DEFAULTS, linkKbps: 20 * TOP, serverPaceMultiple: 1.05 });
    expect(
      video.slice(-10).every((b) => b < TOP),
      `video bitrates ${video.join(' ')}`,
    ).toBe(true);
  });
});

// @vitest-environment happy-dom
/**
 * Pace-only mode against the real hls.js 1.7: hls.js's own AbrController picks every level,
 * Sammy adds the pace, the initial phase and the start estimate, and refuses a pace that would
 * starve hls.js's ABR — minimums derived from hls.js's sources (src/abr-requirements.ts).
 */
import { describe, expect, it } from 'vitest';
import { memoryStore, SammyConfigError } from '../src/index.js';
import { hlsAbrRequirements, HLS_ABR_DEFAULTS, paceOnly } from '../src/pace-only.js';
import { cmcdOf, play, setup } from './support/player.js';

const minimums = (config = {}, c = 1) => {
  const abr = hlsAbrRequirements(config, 30);
  return Object.fromEntries(
    abr.requirements.map((r) => [r.rule, Math.max(...abr.check({ c0: c, c1: c, overhead: 0.05 }, [r], 30).map((s) => s.minimum))]),
  );
};

describe('what hls.js’s ABR needs from a paced download', () => {
  it('with hls.js’s defaults: keep the top 1.11, step up to it 1.51, not be abandoned 2.11 (× the top, after 5% overhead)', () => {
    expect(minimums()).toEqual({
      "under hls.js's level choice (abrBandWidthFactor 0.95)": 1.11,
      "under hls.js's level choice (abrBandWidthUpFactor 0.7)": 1.51,
      "under hls.js's emergency abandon rule": 2.11,
    });
    expect(hlsAbrRequirements({}, 30)).toMatchObject({
      name: 'hls.js',
      bufferTargetSeconds: 30,
      safetyFactor: HLS_ABR_DEFAULTS.abrBandWidthFactor,
    });
  });

  it('follows the player’s factors', () => {
    expect(minimums({ abrBandWidthFactor: 0.8, abrBandWidthUpFactor: 0.4 })).toMatchObject({
      "under hls.js's level choice (abrBandWidthFactor 0.8)": 1.32,
      "under hls.js's level choice (abrBandWidthUpFactor 0.4)": 2.64,
    });
  });
});

describe('attach(hls, { mode: paceOnly })', () => {
  it('accepts the defaults (c0 3.2, c1 2.8); refuses c1 below 2.11 naming the abandon rule, and c0 likewise', async () => {
    await expect(setup({ mode: paceOnly })).resolves.toBeDefined();
    const refused = (options: object, config = {}) =>
      setup({ mode: paceOnly, c0: 3.2, c1: 2.8, ...options }, config).then(
        () => undefined,
        (e: unknown) => e,
      );
    const c1 = (await refused({ c1: 2 })) as SammyConfigError;
    expect(c1).toBeInstanceOf(SammyConfigError);
    expect(c1.parameter).toBe('c1');
    expect(c1.shortfall?.minimum).toBe(2.11);
    expect(c1.message).toMatch(/emergency abandon rule/);
    expect(((await refused({ c0: 1.5 })) as SammyConfigError).parameter).toBe('c0');
    // hls.js's step-up factor from the player's own config: 1/0.4/0.95 = 2.64 > 2.6.
    const up = (await refused({ c1: 2.6 }, { abrBandWidthUpFactor: 0.4 })) as SammyConfigError;
    expect(up.shortfall?.minimum).toBe(2.64);
    expect(up.message).toMatch(/abrBandWidthUpFactor 0\.4/);
  });

  it('update() re-checks against the config as it stands, and keeps the old set when refused', async () => {
    const { sammy, hls } = await setup({ mode: paceOnly, c0: 3.2, c1: 2.8 });
    expect(() => sammy.update({ c1: 1.9 })).toThrow(SammyConfigError);
    expect(sammy.parameters.c1).toBe(2.8);
    hls.config.abrBandWidthUpFactor = 0.3;
    expect(() => sammy.update({ c0: 3.2 })).toThrow(/abrBandWidthUpFactor 0\.3/);
    hls.config.abrBandWidthUpFactor = 0.7;
    sammy.update({ c1: 2.2 });
    expect(sammy.parameters.c1).toBe(2.2);
  });

  it('hls.js’s own AbrController picks (Sammy’s bitrate rule stays out); the pace is Sammy’s', async () => {
    const ctx = await setup({ mode: paceOnly, initialHistory: memoryStore([2000]) });
    expect(ctx.sammy.mode).toBe('pace-only');
    // The start estimate from the history: 0.95 × 2000 kbps = 1900 kbps → hls.js’s own first pick at factor 1: 1628.
    expect(ctx.hls.abrEwmaDefaultEstimate).toBe(1_900_000);
    expect(ctx.hls.firstAutoLevel).toBe(2);
    expect(ctx.hls.nextAutoLevel).toBe(2);
    expect(cmcdOf(await ctx.loadFragment('video', 2)).rtp).toBeUndefined();
    play(ctx.media);
    const sent = cmcdOf(await ctx.loadFragment('video', 2));
    expect(sent).toMatchObject({ br: 1628, ot: 'v' });
    expect(ctx.decisions.at(-1)).toMatchObject({ bitrateKbps: 1628, paceRateKbps: sent.rtp, paceBaseKbps: 6128 });
    expect(sent.rtp).toBeGreaterThanOrEqual(2.11 * 6128 * 0.99);
  });

  it('without a history hls.js’s own start stays (500 kbps default estimate); detach restores its config', async () => {
    const ctx = await setup({ mode: paceOnly });
    expect(ctx.hls.abrEwmaDefaultEstimate).toBe(500_000);
    expect(ctx.hls.firstAutoLevel).toBe(0);
    const withHistory = await setup({ mode: paceOnly, initialHistory: memoryStore([2000]) });
    withHistory.sammy.detach();
    expect(withHistory.hls.config.abrEwmaDefaultEstimate).toBe(500_000);
  });
});

describe('the mode option', () => {
  it("takes only 'sammy' or paceOnly", async () => {
    await expect(setup({ mode: 'pace-only' as never })).rejects.toThrow(/paceOnly from 'sammy-pacing-hlsjs\/pace-only'/);
    expect((await setup({ mode: 'sammy' })).sammy.mode).toBe('sammy');
    expect((await setup({ mode: paceOnly })).sammy.mode).toBe('pace-only');
  });
});

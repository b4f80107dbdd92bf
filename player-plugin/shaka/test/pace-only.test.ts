// @vitest-environment happy-dom
/**
 * Pace-only mode against the real Shaka module: Shaka's SimpleAbrManager keeps choosing (wrapped,
 * never overruled), Sammy paces, keeps the initial phase and gives Shaka its start estimate from
 * the history; the validation holds the pace to SimpleAbrManager's needs as configured.
 */
import { describe, expect, it, vi } from 'vitest';
import { memoryStore, SammyConfigError } from '../src/index.js';
import { paceOnly, SHAKA_ABR_DEFAULTS, shakaAbrRequirements } from '../src/pace-only.js';
import { cmcdOf, setup, shaka, TOP_KBPS } from './support/player.js';

function bareSimple(abr: object, variants: shaka.extern.Variant[]) {
  const simple = new shaka.abr.SimpleAbrManager();
  simple.configure(abr as shaka.extern.AbrConfiguration);
  simple.setVariants(variants, false);
  return simple;
}

describe('pace-only mode', () => {
  it('keeps Shaka’s own choice (SimpleAbrManager, wrapped) and adds the pace', async () => {
    const ctx = await setup({ mode: paceOnly });
    expect(ctx.sammy.mode).toBe('pace-only');
    const abr = ctx.load();
    const simple = bareSimple(ctx.player.getConfiguration().abr, ctx.variants);
    expect(abr.chooseVariant(true)).toBe(simple.chooseVariant(true));
    // Its samples go to Shaka's estimator: 128 kB at 20 Mbps moves it off the default.
    abr.segmentDownloaded(100, 250_000, true);
    simple.segmentDownloaded(100, 250_000, true);
    expect(abr.getBandwidthEstimate()).toBe(simple.getBandwidthEstimate());
    expect(abr.chooseVariant()).toBe(simple.chooseVariant());
    ctx.setBuffer({ video: 10, audio: 10 });
    expect(cmcdOf(await ctx.request('video')).rtp).toBeUndefined();
    ctx.play();
    expect(cmcdOf(await ctx.request('video')).rtp).toBe(17_200);
  });

  it('passes Shaka’s own switches through', async () => {
    const ctx = await setup({ mode: paceOnly });
    const abr = ctx.load();
    abr.chooseVariant();
    abr.enable();
    expect(ctx.switches.length).toBeGreaterThan(0);
    expect(ctx.switches.at(-1)!.video!.bandwidth).toBe(750_000);
  });

  it('gives Shaka its start estimate from the initial-phase history, and a fresh estimator on every load', async () => {
    const ctx = await setup({ mode: paceOnly, initialHistory: memoryStore([20_000]) });
    const abr = ctx.load();
    expect(abr.getBandwidthEstimate()).toBeCloseTo(20_000_000, -4);
    expect(abr.chooseVariant(true).video!.bandwidth).toBe(TOP_KBPS * 1000);
    // A paced session's samples (2 Mbps) must not be the next load's start.
    for (let i = 0; i < 10; i++) abr.segmentDownloaded(1000, 250_000, true);
    expect(abr.getBandwidthEstimate()).toBeCloseTo(2_000_000, -4);
    abr.stop();
    abr.init(
      () => {},
      () => {},
    );
    expect(abr.getBandwidthEstimate()).toBeCloseTo(20_000_000, -4);
  });

  it('requires c0, c1 ≥ 1 / (bandwidthDowngradeTarget × (1 − overhead)) = 1.11 with Shaka’s defaults', async () => {
    const ctx = await setup({ mode: paceOnly, c0: 1.11, c1: 1.11 });
    expect(ctx.sammy.parameters.c1).toBe(1.11);
    let error: unknown;
    try {
      ctx.sammy.update({ c1: 1.1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SammyConfigError);
    expect(error).toMatchObject({
      parameter: 'c1',
      shortfall: { minimum: 1.11, rule: "under Shaka's SimpleAbrManager (abr.bandwidthDowngradeTarget 0.95)" },
    });
    expect((error as Error).message).toMatch(/c1 = 1.1 cannot sustain the top rung under Shaka's SimpleAbrManager/);
    expect(ctx.sammy.parameters.c1).toBe(1.11);
    await expect(setup({ mode: paceOnly, c0: 1.05 })).rejects.toThrow(SammyConfigError);
  });

  it('reads Shaka’s abr settings: a lower bandwidthDowngradeTarget needs a faster pace, at attach, update and reconfiguration', async () => {
    expect(shakaAbrRequirements({ bandwidthDowngradeTarget: 0.5 }, 10).requirements[0]!.throughputMultiple).toBe(2);
    expect(shakaAbrRequirements(undefined, 10).safetyFactor).toBe(SHAKA_ABR_DEFAULTS.bandwidthDowngradeTarget);
    // 1 / (0.3 × 0.95) = 3.51 > c0 = 3.2, c1 = 2.8.
    await expect(setup({ mode: paceOnly }, { abr: { bandwidthDowngradeTarget: 0.3 } })).rejects.toThrow(
      /c[01] = (3.2|2.8) cannot sustain the top rung under Shaka's SimpleAbrManager \(abr.bandwidthDowngradeTarget 0.3\).* must be at least 3.51/,
    );
    const ctx = await setup({ mode: paceOnly }, { abr: { bandwidthDowngradeTarget: 0.5 } });
    expect(() => ctx.sammy.update({ c1: 2.1 })).toThrow(SammyConfigError);
    ctx.sammy.update({ c1: 2.11 });
    // Shaka reconfigured behind Sammy's back: its configure must not throw; the reason is logged.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const abr = ctx.load();
    ctx.player.configure({ abr: { bandwidthDowngradeTarget: 0.3 } });
    // What Shaka's configure does next for its AbrManager (lib/player.js, applyConfig_).
    abr.configure(ctx.player.getConfiguration().abr);
    expect(logged).toHaveBeenCalledWith(expect.objectContaining({ name: 'SammyConfigError' }));
    logged.mockRestore();
  });

  it('refuses an unknown mode', async () => {
    await expect(setup({ mode: 'pace-only' as never })).rejects.toThrow(TypeError);
  });
});

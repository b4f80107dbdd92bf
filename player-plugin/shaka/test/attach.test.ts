// @vitest-environment happy-dom
/**
 * The adapter against the real Shaka Player 5 module: its Player, NetworkingEngine, CMCD and
 * SimpleAbrManager (no MediaSource outside a browser: the AbrManager's lifecycle is driven as
 * Shaka's load drives it; test/support/player.ts). The browser path is covered end to end.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryStore, PRESETS, SammyConfigError } from '../src/index.js';
import { AUDIO_KBPS, cmcdOf, setup, shaka, TOP_KBPS } from './support/player.js';

/** The paper's production multipliers and no probing, given explicitly so the expected figures do not follow the core's defaults. */
const PAPER = { c0: 3.2, c1: 2.8, probeInterval: 1 } as const;

describe('attach(player)', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeEach(async () => {
    ctx = await setup(PAPER);
  });

  it('installs Sammy as Shaka’s AbrManager through abrFactory, and keeps Shaka’s CMCD on', () => {
    const config = ctx.player.getConfiguration();
    expect(config.abrFactory()).toHaveProperty('yieldToInner');
    expect(config.cmcd.enabled).toBe(true);
    expect(config.cmcd.useHeaders).toBe(false);
    expect(ctx.sammy.mode).toBe('sammy');
    expect(ctx.sammy.cmcdMode).toBe('query');
  });

  it('without Sammy, Shaka’s own CMCD puts an rtp of its own on media segments (what Sammy replaces)', async () => {
    ctx.sammy.detach();
    const sent = await ctx.request('video');
    // Shaka: rtpSafetyFactor × segment kbits ÷ buffer seconds, its media element's buffer being
    // empty here (0.5 s then): 5 × 6000 × 4 / 0.5 — the 240,000 kbps seen against our origin.
    expect(cmcdOf(sent).rtp).toBe(240_000);
  });

  it('sends no rtp in the initial phase (Shaka’s removed, its other keys kept), then the buffer-interpolated pace', async () => {
    ctx.load();
    ctx.setBuffer({ video: 5, audio: 6 });
    const first = cmcdOf(await ctx.request('video'));
    expect(first.rtp).toBeUndefined();
    expect(first).toMatchObject({ br: TOP_KBPS, ot: 'v' });
    expect(first.sid).toBeTruthy();
    expect(ctx.decisions.at(-1)).toMatchObject({ phase: 'initial', paceRateKbps: undefined, enabled: true });

    ctx.play();
    const sent = await ctx.request('video');
    // The top rung fetched at B = 5/10 (Shaka's bufferingGoal): between c1 and c0 × (6000 + 128)
    // (with the paper's line, 2.8·0.5 + 3.2·0.5 = 3.0 → 18 384 → 18 400), rounded to 100.
    const rtp = cmcdOf(sent).rtp as number;
    expect(rtp).toBe(ctx.decisions.at(-1)!.paceRateKbps);
    expect(rtp % 100).toBe(0);
    expect(rtp).toBeGreaterThanOrEqual(2.8 * (TOP_KBPS + AUDIO_KBPS) - 50);
    expect(rtp).toBeLessThanOrEqual(3.2 * (TOP_KBPS + AUDIO_KBPS) + 50);
    expect(ctx.decisions.at(-1)).toMatchObject({
      phase: 'playing',
      bitrateKbps: TOP_KBPS,
      topVideoBitrateKbps: TOP_KBPS,
      paceBaseKbps: TOP_KBPS + AUDIO_KBPS,
      paceBufferLevelSeconds: 5,
      bufferTargetSeconds: 10,
    });
    expect(ctx.decisions.at(-1)!.url).not.toContain('CMCD');
    expect(new URL(sent.uri).searchParams.getAll('CMCD')).toHaveLength(1);
  });

  it('gives audio requests the same pace as video (one pace per connection)', async () => {
    ctx.load();
    ctx.setBuffer({ video: 8, audio: 8 });
    ctx.play();
    expect(cmcdOf(await ctx.request('audio')).rtp).toBe(cmcdOf(await ctx.request('video')).rtp);
  });

  it('never puts rtp on manifest or init requests', async () => {
    ctx.load();
    ctx.play();
    expect(cmcdOf(await ctx.request('init')).rtp).toBeUndefined();
    expect(cmcdOf(await ctx.request('manifest')).rtp).toBeUndefined();
  });

  it('header mode (cmcd.useHeaders): rtp in CMCD-Status, nothing in the query', async () => {
    ctx.sammy.detach();
    ctx = await setup({ ...PAPER, cmcdMode: 'header' });
    expect(ctx.player.getConfiguration().cmcd.useHeaders).toBe(true);
    ctx.load();
    ctx.setBuffer({ video: 10, audio: 10 });
    ctx.play();
    const sent = await ctx.request('video');
    expect(new URL(sent.uri).searchParams.has('CMCD')).toBe(false);
    // Full buffer: c1 × (6000 + 128) = 2.8 × 6128 = 17 158 → 17 200.
    expect(sent.headers['CMCD-Status']).toBe(`rtp=${ctx.decisions.at(-1)!.paceRateKbps}`);
    expect(ctx.decisions.at(-1)!.paceRateKbps).toBe(17_200);
    expect(cmcdOf(sent).sid).toBeTruthy();
  });

  it('follows Shaka’s useHeaders when no cmcdMode is given, and setCmcdMode switches both', async () => {
    ctx.sammy.detach();
    ctx = await setup({}, { cmcd: { enabled: true, useHeaders: true } });
    expect(ctx.sammy.cmcdMode).toBe('header');
    ctx.sammy.setCmcdMode('query');
    expect(ctx.player.getConfiguration().cmcd.useHeaders).toBe(false);
    expect(() => ctx.sammy.setCmcdMode('headers' as never)).toThrow(TypeError);
  });

  it('feeds each finished media download back as a sample; unpaced initial-phase video samples fill the history', async () => {
    ctx.load();
    await ctx.request('video', { bytes: 2_000_000, timeMs: 400 });
    expect(ctx.samples.at(-1)).toMatchObject({
      mediaType: 'video',
      bytes: 2_000_000,
      durationMs: 400,
      throughputKbps: 40_000,
      phase: 'initial',
      paceRateKbps: undefined,
    });
    expect(ctx.history.load()).toEqual([40_000]);
    ctx.play();
    await ctx.request('video', { bytes: 2_000_000, timeMs: 1000 });
    expect(ctx.samples.at(-1)).toMatchObject({ phase: 'playing', throughputKbps: 16_000 });
    expect(ctx.history.load()).toEqual([40_000]);
    await ctx.request('init');
    expect(ctx.samples).toHaveLength(2);
  });

  it('picks the start variant from the player’s own start (1000 kbps) without history, from the history with one', async () => {
    const abr = ctx.load();
    expect(abr.chooseVariant(true).video!.bandwidth).toBe(750_000);
    ctx.sammy.detach();
    ctx = await setup({ initialHistory: memoryStore([50_000, 60_000]) });
    expect(ctx.load().chooseVariant(true).video!.bandwidth).toBe(TOP_KBPS * 1000);
  });

  it('switches as the playing-phase estimate moves: down on a slow link, back up on a fast one', async () => {
    const abr = ctx.playing();
    ctx.setBuffer({ video: 4, audio: 4 });
    // 2 Mbps measured: β·x·(1 + B/D) = 0.7 · 2000 · 1.2 = 1680 → the 1500 rung.
    for (let i = 0; i < 5; i++) await ctx.request('video', { bytes: 250_000, timeMs: 1000 });
    expect(ctx.switches.at(-1)!.video!.bandwidth).toBe(1_500_000);
    for (let i = 0; i < 5; i++) await ctx.request('video', { bytes: 2_500_000, timeMs: 1000 });
    expect(ctx.switches.at(-1)!.video!.bandwidth).toBe(TOP_KBPS * 1000);
    expect(abr.getBandwidthEstimate()).toBeCloseTo(20_000_000, -3);
  });

  it('switches once a video segment’s fetch has ended, counting the segment as buffered, and never on an audio sample', async () => {
    ctx.playing();
    // 1 s buffered before Shaka appends the 4 s segment just downloaded, 7 Mbps measured:
    // β·x·(1 + B/D) = 0.7 · 7000 · (1 + 5/20) = 6125 → the top (from the buffer without the
    // segment, 0.7 · 7000 · 1.05 = 5145 → 3000: the choice flipped between the two in the lab).
    ctx.setBuffer({ video: 1, audio: 9 });
    for (let i = 0; i < 5; i++) await ctx.request('video', { bytes: 875_000, timeMs: 1000 });
    expect(ctx.switches.at(-1)!.video!.bandwidth).toBe(TOP_KBPS * 1000);
    const switches = ctx.switches.length;
    // An audio sample mid-way through the next video segment: no switch (Shaka would drop that segment).
    await ctx.request('audio', { bytes: 16_000, timeMs: 1000 });
    expect(ctx.switches).toHaveLength(switches);
    // A slow video segment (2 Mbps, the link's: the session's estimate falls to 4667 kbps, but below 8 s
    // of buffer the rule goes by that segment itself, issue 33: 0.7 · 2000 · 1.25 = 1750 → 1500): no
    // switch while Shaka's fetch operation is still open (it would abort the segment and fetch it again), then one.
    await ctx.request('video', { bytes: 250_000, timeMs: 1000, settle: false });
    expect(ctx.switches).toHaveLength(switches);
    await ctx.settle();
    expect(ctx.switches.at(-1)!.video!.bandwidth).toBe(1_500_000);
  });

  it('with abr.clearBufferSwitch a step up must afford fetching the buffer again: at 20 s and 7 Mbps, 3000 kbps instead of the top', async () => {
    // 750 kbps segments of 4 s at 7 Mbps. Eq. 1 at 20 s allows 0.7 · 7000 · 2 = 9800 kbps: the top
    // without a refetch. With one, the top leaves 20 − 20 · 6000 / 7000 = 2.9 s, short of its next
    // segment's 3.4 s download; 3000 kbps leaves 11.4 s.
    const stepUp = async (clearBufferSwitch: boolean) => {
      ctx.sammy.detach();
      ctx = await setup({}, { abr: { clearBufferSwitch } });
      ctx.playing();
      ctx.setBuffer({ video: 20, audio: 20 });
      for (let i = 0; i < 5; i++) await ctx.request('video', { stream: ctx.video[1], bytes: 375_000, timeMs: 3000 / 7 });
      return ctx.switches.at(-1)?.video?.bandwidth;
    };
    expect(await stepUp(false)).toBe(TOP_KBPS * 1000);
    expect(await stepUp(true)).toBe(3_000_000);
  });

  it('keeps the pace base at the load’s full ladder while Shaka bans a variant (its top back within reach), afresh at the next load', async () => {
    const abr = ctx.load();
    ctx.play();
    ctx.setBuffer({ video: 10, audio: 10 });
    // Shaka drops a banned stream (dropped frames) from the variants it sets.
    abr.setVariants(ctx.variants.slice(0, 3), false);
    await ctx.request('video', { stream: ctx.video[2] });
    expect(ctx.decisions.at(-1)).toMatchObject({ topVideoBitrateKbps: TOP_KBPS, paceBaseKbps: TOP_KBPS + AUDIO_KBPS });
    ctx.player.dispatchEvent(new shaka.util.FakeEvent('loading'));
    abr.setVariants(ctx.variants.slice(0, 3), false);
    ctx.play();
    await ctx.request('video', { stream: ctx.video[2] });
    expect(ctx.decisions.at(-1)!.topVideoBitrateKbps).toBe(1500);
  });

  it('applies abr.restrictions', async () => {
    ctx.sammy.detach();
    ctx = await setup({ initialHistory: memoryStore([50_000]) }, { abr: { restrictions: { maxHeight: 720 } } });
    const abr = ctx.load();
    expect(abr.chooseVariant().video!.height).toBe(720);
    expect(abr.chooseVariant().video!.bandwidth).toBe(3_000_000);
  });

  it('switched off: Shaka’s own SimpleAbrManager chooses and switches, and no rtp is sent', async () => {
    const abr = ctx.playing();
    ctx.sammy.setEnabled(false);
    const simple = new shaka.abr.SimpleAbrManager();
    simple.configure(ctx.player.getConfiguration().abr);
    simple.setVariants(ctx.variants, false);
    expect(abr.chooseVariant()).toBe(simple.chooseVariant());
    expect(cmcdOf(await ctx.request('video')).rtp).toBeUndefined();
    ctx.sammy.setEnabled(true);
    expect(cmcdOf(await ctx.request('video')).rtp).toBeGreaterThan(0);
  });

  it('detach() removes the filters, restores abrFactory and CMCD, and leaves the current AbrManager to Shaka’s own', async () => {
    const abr = ctx.load();
    ctx.play();
    ctx.sammy.detach();
    const config = ctx.player.getConfiguration();
    expect(config.abrFactory()).toBeInstanceOf(shaka.abr.SimpleAbrManager);
    const simple = new shaka.abr.SimpleAbrManager();
    simple.configure(config.abr);
    simple.setVariants(ctx.variants, false);
    expect(abr.chooseVariant()).toBe(simple.chooseVariant());
    const before = ctx.decisions.length;
    ctx.setBuffer({ video: 5, audio: 5 });
    expect(cmcdOf(await ctx.request('video')).rtp).toBeGreaterThan(0); // Shaka's own again
    expect(ctx.decisions).toHaveLength(before);
  });

  it('follows phases: Shaka’s loading starts an initial phase, its buffering event (a stall) too; time moving on resumes', async () => {
    ctx.load();
    ctx.play();
    expect(ctx.sammy.phase).toBe('playing');
    ctx.player.dispatchEvent(new shaka.util.FakeEvent('buffering', new Map<string, object>([['buffering', true as unknown as object]])));
    expect(ctx.sammy.phase).toBe('initial');
    ctx.element.currentTime = 10;
    ctx.element.fire('timeupdate');
    ctx.element.currentTime = 10.25;
    ctx.element.fire('timeupdate');
    expect(ctx.sammy.phase).toBe('playing');
    ctx.element.fire('seeking');
    expect(ctx.sammy.phase).toBe('initial');
    ctx.play();
    ctx.player.dispatchEvent(new shaka.util.FakeEvent('loading'));
    expect(ctx.sammy.phase).toBe('initial');
  });

  it('refuses a configuration that could spiral (Sammy’s own rule, Eq. 1 at an empty buffer: c0 ≥ 1 / (β(1 − overhead)) = 1.51)', async () => {
    expect(() => ctx.sammy.update({ c1: 1 })).toThrow(SammyConfigError);
    expect(ctx.sammy.parameters.c1).toBe(2.8);
    ctx.sammy.update({ c1: 1.51 });
    expect(ctx.sammy.parameters.c1).toBe(1.51);
    await expect(setup({ c0: 1.2 })).rejects.toThrow(/c0 = 1.2 cannot sustain the top rung/);
  });

  it('takes PRESETS.neighbourFirst spread into the options (issue 39), through the kit', async () => {
    const first = await setup({ ...PRESETS.neighbourFirst });
    expect(first.sammy.parameters).toMatchObject(PRESETS.neighbourFirst);
    await expect(setup({ linkShare: -1 })).rejects.toThrow(/linkShare must be a number ≥ 0 and ≤ 1/);
  });

  it('never holds a request back when something fails inside', async () => {
    ctx.load();
    ctx.play();
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(ctx.player, 'getBufferedInfo').mockImplementation(() => {
      throw new Error('boom');
    });
    const sent = await ctx.request('video');
    expect(sent.uri).toContain('seg-');
    error.mockRestore();
  });
});

describe('unknown options', () => {
  it('attach() refuses a key that is no option, naming it and the nearest known one', async () => {
    await expect(setup({ enable: false } as never)).rejects.toThrow("Sammy: unknown option 'enable' (did you mean 'enabled'?)");
  });
});

// @vitest-environment happy-dom
/**
 * The adapter against the real hls.js 1.7 module (outside a browser: no media source, so the
 * buffer levels are stubbed and fragment loads are driven through hls.js's own loader chain —
 * its CMCD controller's wrapper around Sammy's fragment loader). The browser path is covered
 * end to end (e2e/tests/hlsjs.spec.ts).
 */
import Hls from 'hls.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { attach, memoryStore, PRESETS, sammyConfig, SammyConfigError } from '../src/index.js';
import { cmcdOf, FakeLoader, play, setup, type Setup } from './support/player.js';

describe('sammyConfig and attach', () => {
  it('refuses a player not made with sammyConfig, saying how', () => {
    expect(() => attach(new Hls({ autoStartLoad: false }))).toThrow(/new Hls\(sammyConfig\(config\)\)/);
  });

  it('keeps the app’s config, turns CMCD on, and lets hls.js’s CMCD controller wrap Sammy’s fragment loader', () => {
    const config = sammyConfig({ maxBufferLength: 20, cmcd: { useHeaders: true } });
    expect(config.maxBufferLength).toBe(20);
    expect(config.cmcd).toEqual({ useHeaders: true });
    expect(sammyConfig().cmcd).toEqual({});
    const hls = new Hls({ ...config, autoStartLoad: false });
    expect((hls.config.fLoader as { name?: string }).name).toBe('CmcdFragmentLoader');
  });

  it('one attachment per player; detach and attach again', async () => {
    const { hls, sammy } = await setup();
    expect(() => attach(hls)).toThrow(/already attached/);
    sammy.detach();
    attach(hls).detach();
  });
});

describe('attach(hls): pace on every media fragment', () => {
  let ctx: Setup;
  beforeEach(async () => {
    ctx = await setup();
  });

  it('sends no rtp before playback starts, then the buffer-interpolated pace, in hls.js’s own CMCD payload', async () => {
    const first = cmcdOf(await ctx.loadFragment('video'));
    expect(first.rtp).toBeUndefined();
    expect(first).toMatchObject({ ot: 'v', br: 3128, sf: 'h', sid: expect.any(String) });
    expect(ctx.decisions.at(-1)).toMatchObject({ phase: 'initial', paceRateKbps: undefined, enabled: true });

    play(ctx.media);
    const paced = await ctx.loadFragment('video');
    // What the session is told: the level's BANDWIDTH, the top BANDWIDTH (audio included, RFC 8216)
    // as the pace base, the lower of the main and audio buffers (12, 15), hls.js's maxBufferLength.
    const decision = ctx.decisions.at(-1)!;
    expect(decision).toMatchObject({
      phase: 'playing',
      bitrateKbps: 3128,
      topVideoBitrateKbps: 6128,
      paceBaseKbps: 6128,
      paceBufferLevelSeconds: 12,
      bufferTargetSeconds: 30,
      mediaType: 'video',
    });
    expect(decision.paceRateKbps).toBeGreaterThan(6128);
    expect(cmcdOf(paced)).toMatchObject({ rtp: decision.paceRateKbps, ot: 'v', br: 3128, sid: expect.any(String) });
    expect(decision.url).toBe('http://origin.test/media/default/seg-3-00002.m4s');
  });

  it('paces from the buffer that stalls first: the audio rendition’s when it is lower', async () => {
    play(ctx.media);
    ctx.buffers.audio = 3;
    const sent = cmcdOf(await ctx.loadFragment('video'));
    expect(ctx.decisions.at(-1)).toMatchObject({ paceBufferLevelSeconds: 3, paceRateKbps: sent.rtp });
    ctx.buffers.audio = null; // no alternate audio: the main buffer alone
    await ctx.loadFragment('video');
    expect(ctx.decisions.at(-1)).toMatchObject({ paceBufferLevelSeconds: 12 });
  });

  it('gives audio fragments the same pace as video (one pace per connection), ot=a', async () => {
    play(ctx.media);
    const audio = cmcdOf(await ctx.loadFragment('audio'));
    const video = cmcdOf(await ctx.loadFragment('video'));
    expect(audio.ot).toBe('a');
    expect(audio.rtp).toBe(video.rtp);
    expect(ctx.decisions.at(-2)).toMatchObject({ mediaType: 'audio' });
  });

  it('never puts rtp on init segments (ot=i) nor playlists (ot=m)', async () => {
    play(ctx.media);
    const init = cmcdOf(await ctx.loadFragment('init'));
    expect(init).toMatchObject({ ot: 'i' });
    expect(init.rtp).toBeUndefined();
    const playlists = FakeLoader.sent.filter((r) => r.url.includes('.m3u8'));
    expect(playlists.length).toBeGreaterThan(0);
    for (const p of playlists) expect(cmcdOf(p)).toMatchObject({ ot: 'm' });
    for (const p of playlists) expect(cmcdOf(p).rtp).toBeUndefined();
  });

  it('reports each finished download as a sample (bytes and duration from hls.js’s loader stats)', async () => {
    await ctx.loadFragment('video');
    expect(ctx.samples.at(-1)).toMatchObject({
      mediaType: 'video',
      bytes: FakeLoader.segmentBytes,
      phase: 'initial',
      paceRateKbps: undefined,
    });
    expect(ctx.samples.at(-1)!.durationMs).toBeCloseTo(FakeLoader.durationMs, 0);
    expect(ctx.samples.at(-1)!.throughputKbps).toBeCloseTo((FakeLoader.segmentBytes * 8) / FakeLoader.durationMs, 0);
  });

  it('goes back to the initial phase on a seek or a stall, and out again when playback resumes', async () => {
    const fire = (type: string) => ctx.media.dispatchEvent(new Event(type));
    play(ctx.media);
    fire('seeking');
    expect(ctx.sammy.phase).toBe('initial');
    expect(cmcdOf(await ctx.loadFragment('video')).rtp).toBeUndefined();
    fire('seeked');
    fire('playing');
    expect(ctx.sammy.phase).toBe('playing');
    fire('waiting');
    expect(ctx.sammy.phase).toBe('initial');
    expect(cmcdOf(await ctx.loadFragment('video')).rtp).toBeUndefined();
    fire('playing');
    expect(cmcdOf(await ctx.loadFragment('video')).rtp).toBe(ctx.decisions.at(-1)!.paceRateKbps);
    expect(ctx.decisions.at(-1)!.paceRateKbps).toBeDefined();
  });

  it('a new source starts the initial phase again', async () => {
    play(ctx.media);
    ctx.hls.loadSource('http://origin.test/media/default/master.m3u8');
    expect(ctx.sammy.phase).toBe('initial');
  });

  it('off: no rtp at all (hls.js’s own removed too), hls.js picks; on again: paced', async () => {
    play(ctx.media);
    ctx.sammy.setEnabled(false);
    expect(cmcdOf(await ctx.loadFragment('video')).rtp).toBeUndefined();
    expect(ctx.decisions.at(-1)).toMatchObject({ enabled: false, paceRateKbps: undefined });
    ctx.sammy.setEnabled(true);
    expect(cmcdOf(await ctx.loadFragment('video')).rtp).toBeGreaterThan(6128);
  });

  it('detach: Sammy’s loader and ABR pass through, listeners gone', async () => {
    play(ctx.media);
    ctx.sammy.detach();
    const before = ctx.decisions.length;
    const sent = cmcdOf(await ctx.loadFragment('video'));
    expect(ctx.decisions.length).toBe(before);
    expect(sent.ot).toBe('v');
    ctx.media.dispatchEvent(new Event('waiting'));
    expect(ctx.sammy.phase).toBe('playing');
  });
});

describe('CMCD versions and modes', () => {
  it('CMCD v2: hls.js’s own rtp (round(level bitrate × 5)) is removed before playback and replaced after', async () => {
    const ctx = await setup({}, { cmcd: { version: 2 } });
    ctx.sammy.setEnabled(false);
    ctx.sammy.detach();
    // Without Sammy, hls.js 1.7 v2 sends its own: 3128 × 5 = 15 640 → 15 600.
    expect(cmcdOf(await ctx.loadFragment('video')).rtp).toBe(15_600);
    const paced = await setup({}, { cmcd: { version: 2 } });
    expect(cmcdOf(await paced.loadFragment('video')).rtp).toBeUndefined();
    play(paced.media);
    const sent = cmcdOf(await paced.loadFragment('video'));
    expect(sent).toMatchObject({ rtp: paced.decisions.at(-1)!.paceRateKbps, v: 2, ot: 'v', br: [3128], tpb: [6128] });
    expect(sent.rtp).not.toBe(15_600);
  });

  it('header mode (cmcd.useHeaders): rtp in CMCD-Status, no CMCD query parameter, hls.js’s keys kept', async () => {
    const ctx = await setup({}, { cmcd: { useHeaders: true } });
    expect(ctx.sammy.cmcdMode).toBe('header');
    play(ctx.media);
    const sent = await ctx.loadFragment('video');
    expect(sent.url).not.toContain('CMCD');
    const pace = ctx.decisions.at(-1)!.paceRateKbps!;
    expect(sent.headers['CMCD-Status']).toBe(`rtp=${pace}`);
    expect(cmcdOf(sent)).toMatchObject({ rtp: pace, ot: 'v', br: 3128 });
    const init = await ctx.loadFragment('init');
    expect(init.headers['CMCD-Status']).toBeUndefined();
    expect(cmcdOf(init).ot).toBe('i');
  });

  it('cmcdMode moves hls.js’s whole payload to the mode asked for, and setCmcdMode switches it live', async () => {
    const ctx = await setup({ cmcdMode: 'header' });
    play(ctx.media);
    const sent = await ctx.loadFragment('video');
    expect(sent.url).not.toContain('CMCD');
    const pace = ctx.decisions.at(-1)!.paceRateKbps!;
    expect(cmcdOf(sent)).toMatchObject({ rtp: pace, ot: 'v' });
    ctx.sammy.setCmcdMode('query');
    expect(new URL((await ctx.loadFragment('video')).url).searchParams.get('CMCD')).toContain(`rtp=${pace}`);
    expect(() => ctx.sammy.setCmcdMode('headers' as never)).toThrow(/cmcdMode/);
  });
});

describe('Sammy’s level choice (abrController)', () => {
  it('first pick without history: where hls.js would start (its 500 kbps default estimate) → the lowest level', async () => {
    const { hls } = await setup();
    expect(hls.firstAutoLevel).toBe(0);
    expect(hls.nextAutoLevel).toBe(0);
  });

  it('first pick from the initial-phase history; then from this session’s samples', async () => {
    const ctx = await setup({ initialHistory: memoryStore([20_000]) });
    // β·x = 0.7 × 20 000 = 14 000 ≥ 6128: the top level.
    expect(ctx.hls.firstAutoLevel).toBe(4);
    play(ctx.media);
    FakeLoader.durationMs = 2000; // 1.5 MB in 2 s = 6000 kbps → 0.7·6000·(1 + 12/20) = 6720 → still 4
    try {
      await ctx.loadFragment('video', 4);
      expect(ctx.hls.nextAutoLevel).toBe(4);
      FakeLoader.durationMs = 8000; // 1500 kbps samples pull the harmonic mean down
      for (let i = 0; i < 5; i++) await ctx.loadFragment('video', 4);
      expect(ctx.hls.nextAutoLevel).toBeLessThan(4);
    } finally {
      FakeLoader.durationMs = 400;
    }
  });

  it('respects autoLevelCapping (and every other cap hls.js puts on maxAutoLevel)', async () => {
    const { hls } = await setup({ initialHistory: memoryStore([20_000]) });
    hls.autoLevelCapping = 2;
    expect(hls.nextAutoLevel).toBe(2);
  });

  it('off: hls.js’s own AbrController decides', async () => {
    const ctx = await setup({ initialHistory: memoryStore([20_000]) });
    expect(ctx.hls.nextAutoLevel).toBe(4);
    ctx.sammy.setEnabled(false);
    expect(ctx.hls.nextAutoLevel).toBe(0); // hls.js alone: its 500 kbps default estimate
  });

  it('hls.js’s bandwidth estimate stays its own (CMCD mtp, hls.bandwidthEstimate)', async () => {
    const { hls, loadFragment } = await setup();
    expect(hls.bandwidthEstimate).toBe(500_000);
    await loadFragment('video');
    expect(hls.bandwidthEstimate).toBe(500_000); // hls.js samples on FRAG_BUFFERED, which needs media
  });
});

describe('attach(hls): the buffer target, and the paper’s preset', () => {
  it('validates at hls.js’s maxBufferLength (or the option), the level each request counts full', async () => {
    // The paper's schedule (full at the whole target), β 0.4: Eq. 1 at a full buffer of B s needs
    // 1 / (0.4 × (1 + B / 20)) measured, ÷ 0.95 overhead: 1.06 at hls.js's 30 s (the rung itself
    // binds), 1.32 at 20 s, 1.76 at the 10 s the core assumes unsaid.
    const paper = { ...PRESETS.paper, beta: 0.4, c1: 1.3 };
    expect((await setup(paper)).sammy.parameters.c1).toBe(1.3);
    const refused = await setup(paper, { maxBufferLength: 20 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(SammyConfigError);
    expect((refused as Error).message).toMatch(/at a full buffer \(20 s\).*c1 must be at least 1.32/);
    expect((await setup({ ...paper, bufferTargetSeconds: 30 }, { maxBufferLength: 20 })).sammy.parameters.c1).toBe(1.3);
    // The defaults count half of it full: at 15 s of hls.js's 30 s, 1 / (0.4 × 1.75) / 0.95 = 1.51.
    const half = await setup({ beta: 0.4, c1: 1.3 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((half as Error).message).toMatch(/at a full buffer \(15 s\).*c1 must be at least 1.51/);
  });

  it('defaults to PRESETS.bufferAware’s pace; PRESETS.paper spread into the options opts in, hls.js’s start estimate kept', async () => {
    expect((await setup()).sammy.parameters).toMatchObject({ ...PRESETS.bufferAware, initialVideoBitrateKbps: 500 });
    expect((await setup({ ...PRESETS.paper })).sammy.parameters).toMatchObject({ ...PRESETS.paper, initialVideoBitrateKbps: 500 });
    // Issue 39's neighbour-first point, through the same kit.
    expect((await setup({ ...PRESETS.neighbourFirst })).sammy.parameters).toMatchObject({
      ...PRESETS.neighbourFirst,
      initialVideoBitrateKbps: 500,
    });
  });
});

describe('unknown options', () => {
  it('attach() refuses a key that is no option, naming it and the nearest known one', async () => {
    await expect(setup({ initialHistroy: memoryStore() } as never)).rejects.toThrow(
      "Sammy: unknown option 'initialHistroy' (did you mean 'initialHistory'?)",
    );
  });
});

// @vitest-environment happy-dom
/**
 * The adapter against the real dash.js 5 module (outside a browser: no media, so the stream's
 * ladder and buffer come from stubs on the real player). The browser path is covered end to end.
 */
import { fromCmcdHeaders } from '@svta/cml-cmcd';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryStore, PRESETS, SAMMY_RULE_NAME, SammyConfigError } from '../src/index.js';
import type { DashRequest, DashResponse } from '../src/player.js';
import { mediaRequest, rtpOf, sammyRule, setup, videoRulesContext } from './support/player.js';

describe('attach(player)', () => {
  let ctx: ReturnType<typeof setup>;
  beforeEach(() => {
    ctx = setup();
  });

  it('switches off every dash.js rule that would fight the pace, abandon rule included', () => {
    const rules = ctx.player.getSettings().streaming!.abr!.rules!;
    for (const r of ['throughputRule', 'bolaRule', 'insufficientBufferRule', 'switchHistoryRule', 'abandonRequestsRule'] as const) {
      expect(rules[r]!.active, r).toBe(false);
    }
    expect(ctx.rules).toHaveLength(1);
    expect(ctx.rules[0]).toMatchObject({ type: 'qualitySwitchRules', name: SAMMY_RULE_NAME });
  });

  it('enables CMCD in query mode without dash.js’s own rtp key', () => {
    const cmcd = ctx.player.getSettings().streaming!.cmcd!;
    expect(cmcd.enabled).toBe(true);
    expect(cmcd.mode).toBe('query');
    expect(cmcd.enabledKeys).not.toContain('rtp');
    expect(cmcd.enabledKeys).toContain('br');
  });

  it('sends no rtp before playback starts, then the buffer-interpolated pace', async () => {
    const [intercept] = ctx.requestInterceptors;
    const first = await intercept!(mediaRequest());
    expect(rtpOf(first)).toBeUndefined();
    expect(ctx.decisions.at(-1)).toMatchObject({ phase: 'initial', paceRateKbps: undefined, enabled: true });

    ctx.player.trigger('playbackPlaying' as never, {}, {});
    const paced = await intercept!(mediaRequest());
    // The defaults count the buffer full at half dash.js's 30 s: B = 12/15 → multiplier
    // 1.25·0.8 + 4·0.2 = 1.8; × (6000 + 128) = 11 030 → 11 000.
    expect(rtpOf(paced)).toBe(11_000);
    expect(ctx.decisions.at(-1)).toMatchObject({
      phase: 'playing',
      paceRateKbps: 11_000,
      bufferLevelSeconds: 12,
      bitrateKbps: 3000,
      topVideoBitrateKbps: 6000,
      paceBaseKbps: 6128,
      mediaType: 'video',
    });
    expect(ctx.decisions.at(-1)!.url).not.toContain('CMCD');
  });

  it('gives audio requests the same pace as video (one pace per connection)', async () => {
    ctx.player.trigger('playbackPlaying' as never, {}, {});
    const [intercept] = ctx.requestInterceptors;
    expect(rtpOf(await intercept!(mediaRequest('audio')))).toBe(rtpOf(await intercept!(mediaRequest('video'))));
  });

  it('never puts rtp on manifest or init requests, and strips dash.js’s own', async () => {
    ctx.player.trigger('playbackPlaying' as never, {}, {});
    const [intercept] = ctx.requestInterceptors;
    expect(rtpOf(await intercept!(mediaRequest('video', 'InitializationSegment')))).toBeUndefined();
    expect(rtpOf(await intercept!(mediaRequest('video', 'MPD')))).toBeUndefined();
  });

  it('goes back to the initial phase on a seek or a stall, and out again when playback resumes', async () => {
    const [intercept] = ctx.requestInterceptors;
    const trigger = (type: string, payload: object = {}) => ctx.player.trigger(type as never, payload, {});
    trigger('playbackPlaying');
    trigger('playbackSeeking');
    expect(ctx.sammy.phase).toBe('initial');
    expect(rtpOf(await intercept!(mediaRequest()))).toBeUndefined();
    // While seeking, time updates are the seek's, not playback.
    trigger('playbackTimeUpdated', { time: 30 });
    trigger('playbackTimeUpdated', { time: 31 });
    expect(ctx.sammy.phase).toBe('initial');
    // A seek within the buffer brings no 'playing' event: advancing media time means playback resumed.
    trigger('playbackSeeked');
    trigger('playbackTimeUpdated', { time: 31 });
    expect(ctx.sammy.phase).toBe('initial');
    trigger('playbackTimeUpdated', { time: 31.25 });
    expect(ctx.sammy.phase).toBe('playing');
    // A stall is the media element waiting for data; playing resumes it.
    trigger('playbackWaiting');
    expect(ctx.sammy.phase).toBe('initial');
    trigger('playbackTimeUpdated', { time: 31.25 });
    expect(ctx.sammy.phase).toBe('initial');
    trigger('playbackPlaying');
    expect(ctx.sammy.phase).toBe('playing');
  });

  it('ignores dash.js’s momentary empty-buffer report while the media keeps playing', () => {
    ctx.player.trigger('playbackPlaying' as never, {}, {});
    ctx.player.trigger('bufferStalled' as never, { mediaType: 'video' }, {});
    expect(ctx.sammy.phase).toBe('playing');
  });

  it('off: no rtp and dash.js’s rules back; on again: Sammy’s', async () => {
    const [intercept] = ctx.requestInterceptors;
    ctx.player.trigger('playbackPlaying' as never, {}, {});
    ctx.sammy.setEnabled(false);
    expect(rtpOf(await intercept!(mediaRequest()))).toBeUndefined();
    expect(ctx.decisions.at(-1)).toMatchObject({ enabled: false, paceRateKbps: undefined });
    expect(ctx.player.getSettings().streaming!.abr!.rules!.throughputRule!.active).toBe(true);
    expect(ctx.player.getSettings().streaming!.abr!.rules!.abandonRequestsRule!.active).toBe(true);
    ctx.sammy.setEnabled(true);
    expect(ctx.player.getSettings().streaming!.abr!.rules!.throughputRule!.active).toBe(false);
    expect(rtpOf(await intercept!(mediaRequest()))).toBe(11_000);
  });

  it('updates c0 and c1 live and rejects a spiral-prone update, keeping the old values', async () => {
    const [intercept] = ctx.requestInterceptors;
    ctx.player.trigger('playbackPlaying' as never, {}, {});
    ctx.setBuffer(0);
    ctx.sammy.update({ c0: 5 });
    expect(rtpOf(await intercept!(mediaRequest()))).toBe(30_600); // 5 × 6128
    expect(() => ctx.sammy.update({ c1: 1 })).toThrow(SammyConfigError);
    expect(ctx.sammy.parameters).toMatchObject({ c0: 5, c1: 1.25 });
  });

  it('in header mode sends the whole payload in CMCD-* headers, rtp in CMCD-Status, none in the URL', async () => {
    ctx.sammy.setCmcdMode('header');
    ctx.player.trigger('playbackPlaying' as never, {}, {});
    const [intercept] = ctx.requestInterceptors;
    const req = await intercept!(mediaRequest());
    expect(req.url).toBe('http://localhost/media/default/video/seg-3.m4s');
    expect(req.headers!['CMCD-Status']).toBe('rtp=11000');
    expect(fromCmcdHeaders(req.headers!)).toMatchObject({ br: 3000, ot: 'v', rtp: 11_000 });
    expect(() => ctx.sammy.setCmcdMode('json' as never)).toThrow(/cmcdMode/);
  });

  it('measures chunk throughput and keeps only unpaced initial-phase samples in the history', async () => {
    const store = memoryStore();
    const c = setup({ initialHistory: store });
    const [intercept] = c.requestInterceptors;
    const [onResponse] = c.responseInterceptors;
    const respond = async (req: DashRequest, bytes: number, ms: number) =>
      onResponse!({
        request: req,
        status: 200,
        data: new ArrayBuffer(bytes),
        resourceTiming: { startTime: 1000, responseEnd: 1000 + ms },
      } as DashResponse);
    await respond(await intercept!(mediaRequest()), 1_000_000, 400); // 20 Mbps, unpaced, initial
    await respond(await intercept!(mediaRequest('audio')), 64_000, 200); // audio: latency-bound, kept out
    c.player.trigger('playbackPlaying' as never, {}, {});
    await respond(await intercept!(mediaRequest()), 1_000_000, 800); // 10 Mbps, paced
    expect(c.samples.map((s) => [s.mediaType, s.phase, s.throughputKbps, s.paceRateKbps])).toEqual([
      ['video', 'initial', 20_000, undefined],
      ['audio', 'initial', 2_560, undefined],
      ['video', 'playing', 10_000, 11_000],
    ]);
    // The video estimate ignores the slow audio sample: harmonic mean of 20 000 and 10 000.
    await intercept!(mediaRequest());
    expect(c.decisions.at(-1)!.estimateKbps).toBeCloseTo(13_333, 0);
    expect(store.load()).toEqual([20_000]);
    // The next session's first pick follows that history: β × 20 000.
    expect(setup({ initialHistory: store }).player.getSettings().streaming!.abr!.initialBitrate!.video).toBe(14_000);
  });

  it('the rule picks by Eq. 1 from the session estimate and defers to dash.js when off', () => {
    const instance = sammyRule(ctx);
    const rulesContext = videoRulesContext;
    // No samples yet: where dash.js itself starts, the highest rung ≤ 1000 kbps (its DEFAULT_VIDEO_BITRATE).
    expect(instance.getSwitchRequest(rulesContext).representation!.bitrateInKbit).toBe(750);
    expect(ctx.player.getSettings().streaming!.abr!.initialBitrate!.video).toBe(1000);
    expect(instance.getSwitchRequest(rulesContext).priority).toBe(1);
    ctx.sammy.setEnabled(false);
    expect(instance.getSwitchRequest(rulesContext).representation).toBeNull();
  });

  it('reports per request the buffer and estimate the rule chose with, and moves dash.js’s start with the history', async () => {
    const c = setup();
    const [intercept] = c.requestInterceptors;
    const [onResponse] = c.responseInterceptors;
    await onResponse!({
      request: await intercept!(mediaRequest()),
      status: 200,
      data: new ArrayBuffer(500_000),
      resourceTiming: { startTime: 0, responseEnd: 1000 },
    } as DashResponse);
    // A 4 Mbps unpaced initial sample: dash.js's first pick now starts from β × 4000.
    expect(c.player.getSettings().streaming!.abr!.initialBitrate!.video).toBe(2800);
    c.setBuffer(2);
    sammyRule(c).getSwitchRequest(videoRulesContext);
    c.setBuffer(5); // the buffer grew between the choice and the request
    // The rule chose 3000 (0.7 × 4000 × (1 + 2/20) = 3080) at a 2 s buffer: the 3000 kbps request reports that.
    await intercept!(mediaRequest());
    expect(c.decisions.at(-1)).toMatchObject({ bitrateKbps: 3000, bufferLevelSeconds: 2, estimateKbps: 4000 });
  });

  it('turns dash.js’s fast switching off while Sammy picks, unless the app turned it on; off and detach give it back', () => {
    const fastSwitch = (c: ReturnType<typeof setup>) => c.player.getSettings().streaming!.buffer!.fastSwitchEnabled;
    expect(fastSwitch(ctx)).toBe(false);
    ctx.sammy.setEnabled(false);
    expect(fastSwitch(ctx)).toBe(null);
    ctx.sammy.setEnabled(true);
    expect(fastSwitch(ctx)).toBe(false);
    ctx.sammy.detach();
    expect(fastSwitch(ctx)).toBe(null);
    expect(fastSwitch(setup({}, { streaming: { buffer: { fastSwitchEnabled: true } } }))).toBe(true);
  });

  it('with a hysteresis and the app’s fast switching on, steps up only where the refetch leaves a buffer that keeps the new rung', async () => {
    const rulesContext = videoRulesContext;
    const pickAt = async (fastSwitchEnabled: boolean | null) => {
      const c = setup({ ...PRESETS.bufferAware }, { streaming: { buffer: { fastSwitchEnabled } } });
      const rule = sammyRule(c);
      // Five 4 s segments of 3000 kbps at 7000 kbps.
      for (let i = 0; i < 5; i++) {
        await c.responseInterceptors[0]!({
          request: await c.requestInterceptors[0]!(mediaRequest()),
          status: 200,
          data: new ArrayBuffer(1_500_000),
          resourceTiming: { startTime: 0, responseEnd: 1714 },
        } as DashResponse);
      }
      // (At 4 s: Eq. 1 allows 5880, the low-buffer guard 0.7 × 7000 × 4 / 4 = 4900.)
      c.setBuffer(4);
      expect(rule.getSwitchRequest(rulesContext).representation!.bitrateInKbit).toBe(3000);
      // At 10 s Eq. 1 (5714) and the hysteresis (6600) allow 6000; refetching the buffer's 3 segments would empty it.
      c.setBuffer(10);
      return rule.getSwitchRequest(rulesContext).representation!.bitrateInKbit;
    };
    expect(await pickAt(true)).toBe(3000);
    // dash.js's default (null) is fast switching on, which Sammy turns off: nothing is refetched.
    expect(await pickAt(null)).toBe(6000);
    expect(await pickAt(false)).toBe(6000);
  });

  it('detach removes the rule and restores dash.js’s settings', () => {
    const removeRule = vi.spyOn(ctx.player, 'removeABRCustomRule');
    ctx.sammy.detach();
    expect(removeRule).toHaveBeenCalledWith(SAMMY_RULE_NAME);
    const s = ctx.player.getSettings().streaming!;
    expect(s.abr!.rules!.bolaRule!.active).toBe(true);
    expect(s.cmcd!.enabled).toBe(false);
    expect(s.cmcd!.enabledKeys).toContain('rtp');
  });

  it('rejects a bad configuration at attach time', () => {
    expect(() => setup({ c1: 0.5 })).toThrow(/c1 must be at least/);
  });
});

describe('attach(player): the buffer target, and the paper’s preset', () => {
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(SammyConfigError);
      return (e as SammyConfigError).message;
    }
    throw new Error('not refused');
  };

  it('validates at dash.js’s buffer target at top quality, the smaller of its two; the option wins', () => {
    // The paper's schedule (full at the whole target), β 0.4: Eq. 1 at a full buffer of B s needs
    // 1 / (0.4 × (1 + B / 20)) measured, ÷ 0.95 overhead: 1.06 at dash.js's 30 s (the rung itself
    // binds), 1.32 at 20 s, 1.76 at the 10 s the core assumes unsaid.
    const paper = { ...PRESETS.paper, beta: 0.4, c1: 1.3 };
    expect(setup(paper).sammy.parameters.c1).toBe(1.3);
    const longForm = { streaming: { buffer: { bufferTimeAtTopQualityLongForm: 20 } } };
    expect(refusal(() => setup(paper, longForm))).toMatch(/at a full buffer \(20 s\).*c1 must be at least 1.32/);
    expect(setup({ ...paper, bufferTargetSeconds: 30 }, longForm).sammy.parameters.c1).toBe(1.3);
    // The defaults count half the target full: at 15 s of dash.js's 30 s, 1 / (0.4 × 1.75) / 0.95 = 1.51.
    expect(refusal(() => setup({ beta: 0.4, c1: 1.3 }))).toMatch(/at a full buffer \(15 s\).*c1 must be at least 1.51/);
  });

  it('paces each request at the level dash.js counts full then: its own target, below the core’s 10 s assumption too', async () => {
    const ctx = setup({ ...PRESETS.paper }, { streaming: { buffer: { bufferTimeAtTopQuality: 8 } } });
    ctx.player.trigger('playbackPlaying' as never, {}, {});
    ctx.setBuffer(6);
    // PRESETS.paper: B = 6/8 → 2.8·0.75 + 3.2·0.25 = 2.9; × 6128 = 17 771 → 17 800.
    expect(rtpOf(await ctx.requestInterceptors[0]!(mediaRequest()))).toBe(17_800);
    expect(ctx.decisions.at(-1)).toMatchObject({ bufferTargetSeconds: 8, paceBufferLevelSeconds: 6 });
  });

  it('takes PRESETS.paper spread into the options (the defaults are PRESETS.bufferAware)', async () => {
    expect(setup().sammy.parameters).toMatchObject(PRESETS.bufferAware);
    const ctx = setup({ ...PRESETS.paper });
    expect(ctx.sammy.parameters).toMatchObject(PRESETS.paper);
    ctx.player.trigger('playbackPlaying' as never, {}, {});
    // The paper's line over dash.js's whole 30 s: B = 12/30 → 2.8·0.4 + 3.2·0.6 = 3.04; × 6128 = 18 629 → 18 600.
    expect(rtpOf(await ctx.requestInterceptors[0]!(mediaRequest()))).toBe(18_600);
    expect(ctx.decisions.at(-1)).toMatchObject({ bufferTargetSeconds: 30, paceBaseKbps: 6128 });
    // And back to the defaults' design, live: every other option as it was.
    ctx.sammy.update(PRESETS.bufferAware);
    expect(ctx.sammy.parameters).toEqual(setup().sammy.parameters);
    expect(rtpOf(await ctx.requestInterceptors[0]!(mediaRequest()))).toBe(11_000);
  });
});

describe('PRESETS.neighbourFirst (issue 39)', () => {
  it('spreads into the options and update() like every preset: linkShare on, through the kit; out of range refused, the set kept', () => {
    const ctx = setup({ ...PRESETS.neighbourFirst });
    expect(ctx.sammy.parameters).toMatchObject(PRESETS.neighbourFirst);
    expect(ctx.sammy.parameters.linkShare).toBeGreaterThan(0);
    expect(() => ctx.sammy.update({ linkShare: 1.5 })).toThrow(SammyConfigError);
    expect(ctx.sammy.parameters.linkShare).toBe(PRESETS.neighbourFirst.linkShare);
    ctx.sammy.update(PRESETS.bufferAware);
    expect(ctx.sammy.parameters).toEqual(setup().sammy.parameters);
  });
});

describe('unknown options', () => {
  it('attach() and update() refuse a key that is no option, naming it and the nearest known one', () => {
    expect(() => setup({ bufferTargetSecond: 20 } as never)).toThrow(
      "Sammy: unknown option 'bufferTargetSecond' (did you mean 'bufferTargetSeconds'?)",
    );
    // The option's old name (before 0.2): the error names the new one.
    expect(() => setup({ maxBufferSeconds: 20 } as never)).toThrow(
      "Sammy: unknown option 'maxBufferSeconds' (did you mean 'bufferTargetSeconds'?)",
    );
    expect(() => setup({ cmcdmode: 'header' } as never)).toThrow(/'cmcdmode' \(did you mean 'cmcdMode'\?\)/);
    const { sammy } = setup();
    expect(() => sammy.update({ probeintervall: 2 } as never)).toThrow(/'probeintervall' \(did you mean 'probeInterval'\?\)/);
    expect(sammy.parameters.probeInterval).toBe(3);
  });
});

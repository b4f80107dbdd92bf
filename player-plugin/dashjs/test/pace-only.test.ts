// @vitest-environment happy-dom
/**
 * Pace-only mode against the real dash.js 5 module: dash.js's own ABR stays, Sammy adds the pace
 * and the initial phase, and refuses a pace that would starve dash.js's rules as its settings stand.
 */
import { MediaPlayer } from 'dashjs';
import { describe, expect, it, vi } from 'vitest';
import { memoryStore, SAMMY_RULE_NAME, SammyConfigError } from '../src/index.js';
import { dashAbrRequirements, paceOnly } from '../src/pace-only.js';
import type { DashResponse, DashSettingsLike } from '../src/player.js';
import { mediaRequest, rtpOf, setup } from './support/player.js';

const refusal = (run: () => unknown): SammyConfigError => {
  try {
    run();
  } catch (error) {
    if (error instanceof SammyConfigError) return error;
    throw error;
  }
  throw new Error('expected a SammyConfigError');
};

describe('attach(player, { mode: paceOnly })', () => {
  it('keeps every dash.js ABR rule as it was and installs none of its own', () => {
    const ctx = setup({ mode: paceOnly });
    const rules = ctx.player.getSettings().streaming!.abr!.rules!;
    for (const r of ['throughputRule', 'bolaRule', 'insufficientBufferRule', 'switchHistoryRule', 'abandonRequestsRule'] as const) {
      expect(rules[r]!.active, r).toBe(true);
    }
    expect(ctx.rules).toHaveLength(0);
    expect(ctx.sammy.mode).toBe('pace-only');
    // dash.js's ABR picks, so its fast switching stays as the app set it.
    expect(ctx.player.getSettings().streaming!.buffer!.fastSwitchEnabled).toBe(null);
  });

  it('still replaces dash.js’s own rtp with the pace, and sends none before playback starts', async () => {
    const ctx = setup({ mode: paceOnly });
    const cmcd = ctx.player.getSettings().streaming!.cmcd!;
    expect(cmcd.enabled).toBe(true);
    expect(cmcd.enabledKeys).not.toContain('rtp');
    const [intercept] = ctx.requestInterceptors;
    expect(rtpOf(await intercept!(mediaRequest()))).toBeUndefined(); // dash.js's 2000 stripped, none of ours yet
    ctx.player.trigger('playbackPlaying' as never, {}, {});
    // The same pace as full Sammy: B = 12/30 → 3.04 × (6000 + 128) → 18 600.
    expect(rtpOf(await intercept!(mediaRequest()))).toBe(18_600);
    expect(ctx.decisions.at(-1)).toMatchObject({ phase: 'playing', bitrateKbps: 3000, paceRateKbps: 18_600, bufferLevelSeconds: 12 });
  });

  it('leaves dash.js’s first pick alone without a history, and sets it from unpaced initial-phase samples', async () => {
    const store = memoryStore();
    const ctx = setup({ mode: paceOnly, initialHistory: store });
    expect(ctx.player.getSettings().streaming!.abr!.initialBitrate!.video).toBe(-1);
    const [intercept] = ctx.requestInterceptors;
    const [onResponse] = ctx.responseInterceptors;
    const respond = async (bytes: number, ms: number) =>
      onResponse!({
        request: await intercept!(mediaRequest()),
        status: 200,
        data: new ArrayBuffer(bytes),
        resourceTiming: { startTime: 0, responseEnd: ms },
      } as DashResponse);
    await respond(500_000, 1000); // 4 Mbps, unpaced initial phase
    // dash.js's own safety factor on the history: 0.9 × 4000.
    expect(ctx.player.getSettings().streaming!.abr!.initialBitrate!.video).toBe(3600);
    ctx.player.trigger('playbackPlaying' as never, {}, {});
    await respond(500_000, 100); // paced: kept out of the history
    expect(store.load()).toEqual([4000]);
    expect(setup({ mode: paceOnly, initialHistory: store }).player.getSettings().streaming!.abr!.initialBitrate!.video).toBe(3600);
  });

  it('off: no rtp, dash.js’s rules untouched; detach leaves them too', async () => {
    const ctx = setup({ mode: paceOnly });
    const [intercept] = ctx.requestInterceptors;
    ctx.player.trigger('playbackPlaying' as never, {}, {});
    ctx.sammy.setEnabled(false);
    expect(rtpOf(await intercept!(mediaRequest()))).toBeUndefined();
    ctx.player.updateSettings({ streaming: { abr: { rules: { bolaRule: { active: false } } } } });
    const removeRule = vi.spyOn(ctx.player, 'removeABRCustomRule');
    ctx.sammy.detach();
    expect(removeRule).not.toHaveBeenCalledWith(SAMMY_RULE_NAME);
    expect(ctx.player.getSettings().streaming!.abr!.rules!.bolaRule!.active).toBe(false);
    expect(ctx.player.getSettings().streaming!.cmcd!.enabled).toBe(false);
  });

  it('rejects an unknown mode', () => {
    expect(() => setup({ mode: 'bola' as never })).toThrow(/mode must be 'sammy' or 'pace-only'/);
  });

  it('takes pace-only as the mode object of its own entry, and says where it is when given the name', () => {
    expect(() => setup({ mode: 'pace-only' as never })).toThrow(/paceOnly from 'sammy-pacing-dashjs\/pace-only'/);
    expect(setup({ mode: 'sammy' }).sammy.mode).toBe('sammy');
    expect(setup().sammy.mode).toBe('sammy');
  });
});

describe('pace-only refuses a pace that would starve dash.js’s ABR', () => {
  it('accepts the defaults and any multiplier down to the strictest rule’s minimum (1.51)', () => {
    expect(() => setup({ mode: paceOnly })).not.toThrow();
    expect(() => setup({ mode: paceOnly, c0: 1.51, c1: 1.51 })).not.toThrow();
    // Sammy's own β no longer applies: dash.js picks the bitrates.
    expect(() => setup({ mode: paceOnly, beta: 0.3 })).not.toThrow();
  });

  it('names InsufficientBufferRule at one segment of buffer: 1 / (0.7 × 0.95)', () => {
    const e = refusal(() => setup({ mode: paceOnly, c1: 1.4 }));
    expect(e.parameter).toBe('c1');
    expect(e.message).toMatch(
      /c1 = 1.4 cannot sustain the top rung under dash.js's InsufficientBufferRule \(throughputSafetyFactor 0.7\) at one segment of buffer/,
    );
    expect(e.message).toMatch(/c1 must be at least 1.51/);
    expect(e.shortfall).toMatchObject({ minimum: 1.51, bufferLevelSeconds: undefined });
  });

  it('names ThroughputRule/BOLA at a full buffer: 1 / (bandwidthSafetyFactor × 0.95), read from dash.js’s settings', () => {
    const noInsufficientBuffer = { streaming: { abr: { rules: { insufficientBufferRule: { active: false } } } } };
    expect(() => setup({ mode: paceOnly, c1: 1.4 }, noInsufficientBuffer)).not.toThrow();
    const e = refusal(() => setup({ mode: paceOnly, c1: 1.1 }, noInsufficientBuffer));
    expect(e.message).toMatch(
      /c1 = 1.1 cannot sustain the top rung under dash.js's ThroughputRule and BolaRule \(bandwidthSafetyFactor 0.9\) at a full buffer \(30 s\)/,
    );
    expect(e.shortfall).toMatchObject({ minimum: 1.17, bufferLevelSeconds: 30 });
    // A stricter safety factor in dash.js raises the minimum: 1 / (0.3 × 0.95) = 3.51 > c0 = 3.2 (and c1).
    const strict = refusal(() => setup({ mode: paceOnly }, { streaming: { abr: { throughput: { bandwidthSafetyFactor: 0.3 } } } }));
    expect(strict.parameter).toBe('c0');
    expect(strict.message).toMatch(/bandwidthSafetyFactor 0.3\) at an empty buffer.*c0 must be at least 3.51/);
  });

  it('names the abandon rule at the top of its buffer range (bufferTimeDefault), solving for c1 there', () => {
    const settings = {
      streaming: {
        abr: {
          rules: { insufficientBufferRule: { active: false }, abandonRequestsRule: { parameters: { abandonDurationMultiplier: 0.5 } } },
        },
      },
    };
    // Needs 1 / (0.5 × 0.95) = 2.105 up to 18 s of a 30 s buffer: 3.2 · 0.4 + c1 · 0.6 ≥ 2.105.
    expect(() => setup({ mode: paceOnly, c1: 1.6 }, settings)).not.toThrow();
    const e = refusal(() => setup({ mode: paceOnly, c1: 1.3 }, settings));
    expect(e.message).toMatch(
      /c1 = 1.3 cannot sustain the top rung under dash.js's AbandonRequestsRule \(abandonDurationMultiplier 0.5\) at a buffer of 18 s/,
    );
    expect(e.shortfall).toMatchObject({ minimum: 1.38, bufferLevelSeconds: 18 });
    // A c0 too low fails at an empty buffer, where only c0 counts.
    expect(refusal(() => setup({ mode: paceOnly, c0: 2, c1: 3 }, settings)).message).toMatch(
      /c0 = 2 .* at an empty buffer.*c0 must be at least 2.11/,
    );
  });

  it('re-reads dash.js’s settings on update, and keeps the old parameters when refused', () => {
    const ctx = setup({ mode: paceOnly });
    ctx.sammy.update({ c1: 2 });
    ctx.player.updateSettings({ streaming: { abr: { throughput: { bandwidthSafetyFactor: 0.4 } } } } as never);
    expect(() => ctx.sammy.update({ c0: 3 })).toThrow(/c1 = 2 .*bandwidthSafetyFactor 0.4.*c1 must be at least 2.64/);
    expect(ctx.sammy.parameters).toMatchObject({ c0: 3.2, c1: 2 });
  });

  it('reads only the rules that are active, and dash.js’s fallback to BOLA + throughput when none is', () => {
    // The settings of a real player with some rules switched off.
    const settingsWithout = (names: string[]): DashSettingsLike => {
      const player = MediaPlayer().create();
      player.updateSettings({ streaming: { abr: { rules: Object.fromEntries(names.map((n) => [n, { active: false }])) } } });
      return player.getSettings() as DashSettingsLike;
    };
    const all = [
      'throughputRule',
      'bolaRule',
      'insufficientBufferRule',
      'switchHistoryRule',
      'droppedFramesRule',
      'abandonRequestsRule',
      'l2ARule',
      'loLPRule',
    ];
    expect(dashAbrRequirements(settingsWithout(all), 30).requirements.map((r) => r.rule)).toEqual([
      "under dash.js's ThroughputRule and BolaRule (bandwidthSafetyFactor 0.9)",
    ]);
    expect(dashAbrRequirements(settingsWithout(['bolaRule', 'abandonRequestsRule']), 30).requirements.map((r) => r.rule)).toEqual([
      "under dash.js's ThroughputRule (bandwidthSafetyFactor 0.9)",
      "under dash.js's InsufficientBufferRule (throughputSafetyFactor 0.7)",
    ]);
    const defaults = dashAbrRequirements(settingsWithout([]), 30);
    expect(defaults.requirements.map((r) => Math.round(r.throughputMultiple * 1000) / 1000)).toEqual([1.111, 1.429, 0.556]);
    expect(defaults.safetyFactor).toBe(0.9);
  });

  it('full Sammy mode still checks Sammy’s own rule (β), not dash.js’s', () => {
    expect(() => setup({ beta: 0.3 })).toThrow(/c1 = 1.25 cannot sustain the top rung with beta = 0.3/);
  });
});

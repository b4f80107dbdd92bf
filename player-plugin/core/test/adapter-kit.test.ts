/** The adapter kit without a player: a PlayerDescription of plain values and carriers of plain objects. */
import { describe, expect, it, vi } from 'vitest';
import { createAdapterKit, memoryStore, PRESETS, type PlayerAbr, type PlayerDescription, type SegmentSample } from '../src/index.js';

const player = (over: Partial<PlayerDescription<{ safety: number }>> = {}): PlayerDescription<{ safety: number }> => ({
  package: 'sammy-pacing-test',
  bufferTargetSeconds: () => 30,
  settings: () => ({ safety: 0.9 }),
  cmcdMode: () => 'query',
  ...over,
});
const paceOnly = {
  name: 'pace-only' as const,
  playerAbr: (settings: { safety: number }, bufferTargetSeconds: number): PlayerAbr => ({ name: 'test', requirements: [], bufferTargetSeconds, safetyFactor: settings.safety, check: () => [], pace: PRESETS.paper }),
};
const video = { mediaType: 'video' as const, bitrateKbps: 3000, tracks: { video: { ladderTopKbps: 6000, bufferLevelSeconds: 10 } } };

describe('the adapter kit', () => {
  it('send: writes the decision’s rtp into the carrier (none in the initial phase or for other requests); done reports one sample, aborted none', () => {
    const kit = createAdapterKit({ initialHistory: memoryStore() }, player());
    const samples: SegmentSample[] = [];
    kit.session.on('sample', (s) => samples.push(s));
    kit.session.playback({ type: 'playing' });
    const carrier = { url: 'https://cdn.example/v/1.m4s?CMCD=br%3D3000%2Crtp%3D99900' };
    const sent = kit.send(carrier, () => video);
    expect(sent.decision?.paceRateKbps).toBeGreaterThan(0);
    expect(carrier.url).toBe(`https://cdn.example/v/1.m4s?CMCD=${encodeURIComponent(`br=3000,rtp=${sent.decision!.paceRateKbps}`)}`);
    expect(sent.decision?.url).toBe('https://cdn.example/v/1.m4s');
    expect(sent.done(1_000_000, 1000)?.throughputKbps).toBe(8000);
    expect(sent.done(1_000_000, 1000)).toBeUndefined(); // once
    const manifest = { url: 'https://cdn.example/manifest.mpd?CMCD=rtp%3D5000' };
    expect(kit.send(manifest, () => undefined).decision).toBeUndefined();
    expect(manifest.url).toBe('https://cdn.example/manifest.mpd');
    const aborted = kit.send({ url: 'https://cdn.example/v/2.m4s' }, () => video);
    aborted.aborted();
    expect(aborted.done(1_000_000, 1000)).toBeUndefined();
    expect(samples).toHaveLength(1);
  });

  it('send never throws: a failing player read leaves the request unpaced', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const kit = createAdapterKit({ initialHistory: memoryStore() }, player());
    const carrier = { url: 'https://cdn.example/v/1.m4s' };
    expect(kit.send(carrier, () => { throw new Error('no buffer'); }).decision).toBeUndefined();
    expect(carrier.url).toBe('https://cdn.example/v/1.m4s');
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });

  it('the start: the player’s own unless Sammy is on with something to say, in the player’s unit before its discount', () => {
    const history = () => memoryStore([2000]);
    // Sammy's own mode: only where the player's first pick ignores the ABR hook.
    expect(createAdapterKit({ initialHistory: history() }, player()).startKbps()).toBeUndefined();
    expect(createAdapterKit({ initialHistory: memoryStore() }, player({ firstPickFromStart: true, startKbps: () => 500 })).startKbps()).toBe(500);
    expect(createAdapterKit({ initialHistory: history() }, player({ firstPickFromStart: true })).startKbps()).toBe(1400); // β 0.7 × 2000
    // Pace-only: from the history alone, at the player's own safety factor, undone by its discount.
    expect(createAdapterKit({ mode: paceOnly, initialHistory: memoryStore() }, player()).startKbps()).toBeUndefined();
    expect(createAdapterKit({ mode: paceOnly, initialHistory: history() }, player()).startKbps()).toBe(1800);
    expect(createAdapterKit({ mode: paceOnly, initialHistory: history() }, player({ startDiscount: () => 0.9 })).startKbps()).toBe(2000);
    const off = createAdapterKit({ enabled: false, initialHistory: history() }, player({ firstPickFromStart: true }));
    expect(off.startKbps()).toBeUndefined();
  });

  it('the full level: the option, else the player’s target; the validation at the lowest target', () => {
    const kit = createAdapterKit({ initialHistory: memoryStore() }, player({ bufferTargetSeconds: () => 60, lowestBufferTargetSeconds: () => 20 }));
    kit.session.playback({ type: 'playing' });
    expect(kit.send({ url: 'https://x/1.m4s' }, () => video).decision?.bufferTargetSeconds).toBe(60);
    const withOption = createAdapterKit({ bufferTargetSeconds: 12, initialHistory: memoryStore() }, player({ bufferTargetSeconds: () => 60 }));
    withOption.session.playback({ type: 'playing' });
    expect(withOption.send({ url: 'https://x/1.m4s' }, () => video).decision?.bufferTargetSeconds).toBe(12);
  });

  it('refuses an option that is neither the adapter’s own nor a tunable, inherited names included', () => {
    expect(() => createAdapterKit({ toString: 1 } as never, player())).toThrow("Sammy: unknown option 'toString'");
    expect(() => createAdapterKit({ c2: 1 } as never, player())).toThrow("Sammy: unknown option 'c2' (did you mean 'c0'?)");
    const kit = createAdapterKit({ initialHistory: memoryStore() }, player());
    const controller = kit.controller({ detach() {} });
    expect(() => controller.update({ stepupFactor: 2 } as never)).toThrow("Sammy: unknown option 'stepupFactor' (did you mean 'stepUpFactor'?)");
    expect(controller.parameters.stepUpFactor).toBe(1.1);
  });

  it('the controller: setEnabled with an unchanged value does nothing; cmcdMode checked; detach once', () => {
    const enabled = vi.fn();
    const cmcd = vi.fn();
    const detach = vi.fn();
    const kit = createAdapterKit({ initialHistory: memoryStore() }, player({ cmcdMode: () => 'header' }));
    const controller = kit.controller({ enabled, cmcdMode: cmcd, detach });
    expect(controller).toMatchObject({ mode: 'sammy', cmcdMode: 'header', enabled: true });
    controller.setEnabled(true);
    expect(enabled).not.toHaveBeenCalled();
    controller.setEnabled(false);
    expect(enabled).toHaveBeenCalledWith(false);
    expect(kit.picks()).toBe(false);
    expect(() => controller.setCmcdMode('json' as never)).toThrow(/'query' or 'header'/);
    controller.setCmcdMode('query');
    expect(cmcd).toHaveBeenCalledWith('query');
    controller.detach();
    controller.detach();
    expect(detach).toHaveBeenCalledTimes(1);
  });
});

/** The adapter kit without a player: a PlayerDescription of plain values and carriers of plain objects. */
import { describe, expect, it, vi } from 'vitest';
import {
  createAdapterKit,
  delegate,
  followMediaElement,
  memoryStore,
  PRESETS,
  type PlayerAbr,
  type PlayerDescription,
  type SegmentSample,
} from '../src/index.js';

const player = (over: Partial<PlayerDescription<{ safety: number }>> = {}): PlayerDescription<{ safety: number }> => ({
  package: 'sammy-pacing-test',
  bufferTargetSeconds: () => 30,
  settings: () => ({ safety: 0.9 }),
  cmcdMode: () => 'query',
  ...over,
});
const paceOnly = {
  name: 'pace-only' as const,
  playerAbr: (settings: { safety: number }, bufferTargetSeconds: number): PlayerAbr => ({
    name: 'test',
    requirements: [],
    bufferTargetSeconds,
    safetyFactor: settings.safety,
    check: () => [],
    pace: PRESETS.paper,
  }),
};
const video = {
  mediaType: 'video' as const,
  bitrateKbps: 3000,
  ladderTopKbps: { video: 6000, audio: 0 },
  bufferLevelSeconds: { video: 10, audio: 0 },
};

describe('the adapter kit', () => {
  it('send: writes the decision’s rtp into the carrier (none in the initial phase or for other requests); ended reports one sample, failed none', () => {
    const kit = createAdapterKit({ initialHistory: memoryStore() }, player());
    const samples: SegmentSample[] = [];
    kit.session.on('sample', (s) => samples.push(s));
    kit.session.playback({ type: 'playing' });
    const carrier = { url: 'https://cdn.example/v/1.m4s?CMCD=br%3D3000%2Crtp%3D99900' };
    const request = {};
    const decision = kit.send(carrier, () => video, request);
    expect(decision?.paceRateKbps).toBeGreaterThan(0);
    expect(carrier.url).toBe(`https://cdn.example/v/1.m4s?CMCD=${encodeURIComponent(`br=3000,rtp=${decision!.paceRateKbps}`)}`);
    expect(decision?.url).toBe('https://cdn.example/v/1.m4s');
    expect(kit.ended(request, 1_000_000, 1000)?.throughputKbps).toBe(8000);
    expect(kit.ended(request, 1_000_000, 1000)).toBeUndefined(); // once
    const manifest = { url: 'https://cdn.example/manifest.mpd?CMCD=rtp%3D5000' };
    expect(kit.send(manifest, () => undefined, manifest)).toBeUndefined();
    expect(manifest.url).toBe('https://cdn.example/manifest.mpd');
    expect(kit.ended(manifest, 1000, 10)).toBeUndefined();
    const aborted = {};
    kit.send({ url: 'https://cdn.example/v/2.m4s' }, () => video, aborted);
    kit.failed(aborted);
    expect(kit.ended(aborted, 1_000_000, 1000)).toBeUndefined();
    expect(samples).toHaveLength(1);
  });

  it('ended without the player’s timing: the time since send', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const kit = createAdapterKit({ initialHistory: memoryStore() }, player());
      const request = {};
      kit.send({ url: 'https://cdn.example/v/1.m4s' }, () => video, request);
      vi.advanceTimersByTime(500);
      expect(kit.ended(request, 1_000_000)).toMatchObject({ durationMs: 500, throughputKbps: 16_000 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('the request’s tracks: every type with a ladder, and the requesting one for its buffer', () => {
    const kit = createAdapterKit({ initialHistory: memoryStore() }, player());
    const decide = vi.spyOn(kit.session, 'decide');
    const bufferLevelSeconds = { video: 12, audio: 8 };
    kit.send(
      { url: 'https://cdn.example/v/1.m4s' },
      () => ({ ...video, ladderTopKbps: { video: 6000, audio: 128 }, bufferLevelSeconds }),
      {},
    );
    kit.send(
      { url: 'https://cdn.example/a/1.m4s' },
      () => ({ ...video, mediaType: 'audio', ladderTopKbps: { video: 6000, audio: 0 }, bufferLevelSeconds }),
      {},
    );
    kit.send(
      { url: 'https://cdn.example/v/2.m4s' },
      () => ({ ...video, ladderTopKbps: { video: 6000, audio: 0 }, bufferLevelSeconds }),
      {},
    );
    expect(decide.mock.calls.map(([r]) => r.tracks)).toEqual([
      { video: { ladderTopKbps: 6000, bufferLevelSeconds: 12 }, audio: { ladderTopKbps: 128, bufferLevelSeconds: 8 } },
      { video: { ladderTopKbps: 6000, bufferLevelSeconds: 12 }, audio: { ladderTopKbps: 0, bufferLevelSeconds: 8 } },
      { video: { ladderTopKbps: 6000, bufferLevelSeconds: 12 } },
    ]);
    expect(decide.mock.calls[0]![0]).toMatchObject({ bufferTargetSeconds: 30, url: 'https://cdn.example/v/1.m4s', bitrateKbps: 3000 });
  });

  it('send never throws: a failing player read leaves the request unpaced', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const kit = createAdapterKit({ initialHistory: memoryStore() }, player());
    const carrier = { url: 'https://cdn.example/v/1.m4s' };
    expect(
      kit.send(
        carrier,
        () => {
          throw new Error('no buffer');
        },
        carrier,
      ),
    ).toBeUndefined();
    expect(carrier.url).toBe('https://cdn.example/v/1.m4s');
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });

  it('the start: the player’s own unless Sammy is on with something to say, in the player’s unit before its discount', () => {
    const history = () => memoryStore([2000]);
    // Sammy's own mode: only where the player's first pick ignores the ABR hook.
    expect(createAdapterKit({ initialHistory: history() }, player()).startKbps()).toBeUndefined();
    expect(
      createAdapterKit({ initialHistory: memoryStore() }, player({ firstPickFromStart: true, startKbps: () => 500 })).startKbps(),
    ).toBe(500);
    expect(createAdapterKit({ initialHistory: history() }, player({ firstPickFromStart: true })).startKbps()).toBe(1400); // β 0.7 × 2000
    // Pace-only: from the history alone, at the player's own safety factor, undone by its discount.
    expect(createAdapterKit({ mode: paceOnly, initialHistory: memoryStore() }, player()).startKbps()).toBeUndefined();
    expect(createAdapterKit({ mode: paceOnly, initialHistory: history() }, player()).startKbps()).toBe(1800);
    expect(createAdapterKit({ mode: paceOnly, initialHistory: history() }, player({ startDiscount: () => 0.9 })).startKbps()).toBe(2000);
    const off = createAdapterKit({ enabled: false, initialHistory: history() }, player({ firstPickFromStart: true }));
    expect(off.startKbps()).toBeUndefined();
  });

  it('the buffer target: the option, else the player’s; the validation at the lowest target', () => {
    const kit = createAdapterKit(
      { initialHistory: memoryStore() },
      player({ bufferTargetSeconds: () => 60, lowestBufferTargetSeconds: () => 20 }),
    );
    kit.session.playback({ type: 'playing' });
    expect(kit.send({ url: 'https://x/1.m4s' }, () => video, {})?.bufferTargetSeconds).toBe(60);
    const withOption = createAdapterKit(
      { bufferTargetSeconds: 12, initialHistory: memoryStore() },
      player({ bufferTargetSeconds: () => 60 }),
    );
    withOption.session.playback({ type: 'playing' });
    expect(withOption.send({ url: 'https://x/1.m4s' }, () => video, {})?.bufferTargetSeconds).toBe(12);
  });

  it('refuses an option that is neither the adapter’s own nor a tunable, inherited names included', () => {
    expect(() => createAdapterKit({ toString: 1 } as never, player())).toThrow("Sammy: unknown option 'toString'");
    expect(() => createAdapterKit({ c2: 1 } as never, player())).toThrow("Sammy: unknown option 'c2' (did you mean 'c0'?)");
    const kit = createAdapterKit({ initialHistory: memoryStore() }, player());
    const controller = kit.controller({ detach() {} });
    expect(() => controller.update({ stepupFactor: 2 } as never)).toThrow(
      "Sammy: unknown option 'stepupFactor' (did you mean 'stepUpFactor'?)",
    );
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

describe('delegate: a wrapped player component', () => {
  class Inner {
    level = 3;
    calls: string[] = [];
    get nextLevel() {
      return this.level;
    }
    set nextLevel(level: number) {
      this.level = level;
    }
    load(url: string) {
      this.calls.push(url);
      return this;
    }
  }

  it('answers with its own members, forwards the rest bound to the inner object, and follows a replaced one', () => {
    let inner = new Inner();
    const wrapped = delegate({ own: () => 'sammy' }, () => inner);
    expect(wrapped.own()).toBe('sammy');
    const { load } = wrapped;
    expect(load('a')).toBe(inner); // bound: called detached, it still runs on the inner object
    wrapped.nextLevel = 5;
    expect(inner.level).toBe(5);
    expect('load' in wrapped && 'own' in wrapped && !('missing' in wrapped)).toBe(true);
    inner = new Inner();
    expect(wrapped.nextLevel).toBe(3);
  });

  it('an own accessor wins, and its setter takes the write', () => {
    const inner = new Inner();
    let sammyLevel: number | undefined = 1;
    const wrapped = delegate(
      {
        get nextLevel() {
          return sammyLevel ?? inner.nextLevel;
        },
        set nextLevel(level: number) {
          inner.nextLevel = level;
        },
      },
      () => inner,
    );
    expect(wrapped.nextLevel).toBe(1);
    wrapped.nextLevel = 7;
    sammyLevel = undefined;
    expect(wrapped.nextLevel).toBe(7);
  });
});

describe('followMediaElement', () => {
  const element = (currentTime: number) => Object.assign(new EventTarget(), { currentTime }) as unknown as HTMLMediaElement;

  it('feeds the element given, moves to the next, and stops at null', () => {
    const fed: unknown[] = [];
    const follow = followMediaElement((e) => fed.push(e));
    const first = element(4);
    const second = element(9);
    follow(first);
    follow(first); // the same element: listened to once
    first.dispatchEvent(new Event('timeupdate'));
    first.dispatchEvent(new Event('waiting'));
    follow(second);
    first.dispatchEvent(new Event('playing'));
    second.dispatchEvent(new Event('timeupdate'));
    follow(null);
    second.dispatchEvent(new Event('playing'));
    expect(fed).toEqual([{ type: 'timeupdate', mediaTimeSeconds: 4 }, { type: 'waiting' }, { type: 'timeupdate', mediaTimeSeconds: 9 }]);
  });
});

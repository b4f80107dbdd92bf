// Sammy as Shaka's AbrManager, wrapping one from the factory configured before attach (SimpleAbrManager by
// default): it gets every call, so it is warm to take over whenever Sammy does not pick (pace-only, off, detached).
import { delegate, type AdapterKit } from 'sammy-pacing-core';
import { buffersAhead, kinds, type Appending, type Ladder } from './ladder.js';
import type { AbrConfiguration, AbrManager, PlayerLike, Variant } from './shaka.js';

/** Sammy's AbrManager, with what the attachment calls on it besides Shaka. */
export interface SammyAbrManager extends AbrManager {
  /** Switches to Sammy's choice if it changed (while Sammy picks); `appending`: the segment just downloaded, counted as buffered. */
  suggest(appending?: Appending): void;
  /** Hands the choice back to the inner manager now (Sammy switched off or detached). */
  yieldToInner(): void;
}

/** Shaka's StreamUtils.meetsRestrictions without the hardware limit: the `abr.restrictions` an AbrManager must apply. */
function meets({ video: s, audio, bandwidth }: Variant, r: AbrConfiguration['restrictions']): boolean {
  const within = (x: number | null | undefined, k: 'Width' | 'Height' | 'Pixels' | 'FrameRate' | 'ChannelsCount') =>
    !x || (x >= r[`min${k}`] && x <= r[`max${k}`]);
  const [w, h] = s?.width && s.height ? [Math.max(s.width, s.height), Math.min(s.width, s.height)] : [0, 0];
  return (
    within(w, 'Width') &&
    within(h, 'Height') &&
    within(w * h, 'Pixels') &&
    within(s?.frameRate, 'FrameRate') &&
    within(audio?.channelsCount, 'ChannelsCount') &&
    bandwidth >= r.minBandwidth &&
    bandwidth <= r.maxBandwidth
  );
}
const fast = (v: Variant) => !!(v.audio?.fastSwitching || v.video?.fastSwitching);
const pixels = (v: Variant) => (v.video?.width ?? 0) * (v.video?.height ?? 0);

/** One attachment's `abrFactory` (`create`) and the AbrManager Shaka last initialised (`active`). `makeInner`: the
 *  factory Sammy wraps; `configured`: Shaka configured an AbrManager; `follow`: the media element Shaka gave it. */
export function abrManagers(
  kit: AdapterKit,
  ladder: Ladder,
  player: PlayerLike,
  makeInner: () => AbrManager,
  configured: () => void,
  follow: (element: HTMLMediaElement | null) => void,
) {
  let active: SammyAbrManager | undefined;
  // Closures rather than a class: the state's names then shrink in a minified bundle.
  const create = (): SammyAbrManager => {
    let inner = makeInner(),
      inits = 0,
      enabled = false,
      variants: Variant[] = [];
    let config: AbrConfiguration | undefined,
      switchTo: Parameters<AbrManager['init']>[0] | null = null;
    let last: Variant | null = null; // the variant last chosen or switched to
    // In pace-only mode with a history, Shaka's start estimate from it (the browser's downlink estimate would replace it).
    const configureInner = () => {
      const startKbps = kit.startKbps();
      if (config)
        inner.configure(
          startKbps === undefined ? config : { ...config, defaultBandwidthEstimate: startKbps * 1000, useNetworkInformation: false },
        );
    };
    /** Among the variants Shaka would consider, Sammy's video bitrate, then its audio bitrate; of equals, the most pixels. */
    const choose = (preferFastSwitching?: boolean, appending?: Appending): Variant | undefined => {
      const all = variants.filter(Boolean),
        normal = all.filter((v) => !fast(v));
      const pool = preferFastSwitching && normal.length !== all.length ? all.filter(fast) : normal.length > 0 ? normal : all;
      const restrictions = config?.restrictions;
      let candidates = restrictions ? pool.filter((v) => meets(v, restrictions)) : pool;
      if (candidates.length === 0)
        candidates = pool
          .slice()
          .sort((a, b) => a.bandwidth - b.bandwidth)
          .slice(0, 1);
      const ahead = buffersAhead(player, appending);
      // abr.clearBufferSwitch: a switch fetches the buffer past safeMarginSwitch again, which a step up must afford.
      const stepUpRefetchSeconds = config?.clearBufferSwitch ? Math.max(0, config.safeMarginSwitch || 0) : undefined;
      for (const kind of kinds) {
        const kbps = (v: Variant) => (v[kind] ? ladder.of(v[kind]) : 0);
        const ladderKbps = [...new Set(candidates.map(kbps))].filter((k) => k > 0);
        const choice =
          ladderKbps.length > 0 &&
          kit.session.chooseBitrate({ mediaType: kind, ladderKbps, bufferLevelSeconds: ahead[kind], stepUpRefetchSeconds });
        if (choice) candidates = candidates.filter((v) => kbps(v) === choice.bitrateKbps);
      }
      return candidates.sort((a, b) => pixels(b) - pixels(a) || b.bandwidth - a.bandwidth)[0];
    };

    // What Sammy leaves as it is (segmentDownloaded, playbackRateChanged, setCmsdManager, …) goes to the inner manager.
    const own = {
      init(switchCallback, disableStreamCallback) {
        // Shaka keeps its AbrManager across loads: a fresh inner one forgets the last session's (paced) samples.
        if (inits++) {
          inner.release();
          inner = makeInner();
        }
        configureInner();
        switchTo = switchCallback;
        active = self;
        inner.init(
          (variant, clearBuffer, safeMargin) => kit.picks() || switchCallback((last = variant), clearBuffer, safeMargin),
          disableStreamCallback,
        );
      },
      stop() {
        switchTo = last = null;
        enabled = false;
        if (active === self) active = undefined;
        inner.stop();
      },
      release() {
        self.stop();
        inner.release();
      },
      setVariants(next, isLowLatency) {
        ladder.set((variants = next));
        return inner.setVariants(next, isLowLatency);
      },
      chooseVariant: (preferFastSwitching) =>
        (last = (kit.picks() && choose(preferFastSwitching)) || inner.chooseVariant(preferFastSwitching)),
      enable() {
        enabled = true;
        inner.enable();
        self.suggest();
      },
      disable() {
        enabled = false;
        inner.disable();
      },
      trySuggestStreams() {
        inner.trySuggestStreams();
        self.suggest();
      },
      getBandwidthEstimate() {
        const kbps = kit.picks() ? kit.session.estimateKbps('video') : undefined;
        return kbps === undefined ? inner.getBandwidthEstimate() : kbps * 1000;
      },
      setMediaElement(element) {
        inner.setMediaElement(element);
        follow(element);
      },
      configure(next) {
        config = next;
        configureInner();
        configured();
      },
      suggest(appending) {
        if (!enabled || !switchTo || !kit.picks()) return;
        const variant = choose(undefined, appending);
        if (variant && variant !== last) switchTo((last = variant), config?.clearBufferSwitch, config?.safeMarginSwitch);
      },
      yieldToInner: () => void (enabled && inner.trySuggestStreams()),
    } satisfies Partial<SammyAbrManager>;
    const self: SammyAbrManager = delegate(own, () => inner);
    return self;
  };
  return { create, active: () => active };
}

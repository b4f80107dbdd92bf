/**
 * Sammy as a `shaka.extern.AbrManager` (Shaka's externs/abr_manager.js). Every instance wraps one
 * made by the factory that was configured before attach (Shaka's SimpleAbrManager by default)
 * and forwards every call to it, so that Shaka's own ABR is warm and takes over whenever Sammy
 * does not pick: in pace-only mode, with Sammy switched off, or after `detach()` (Shaka keeps
 * an AbrManager until its next load). When Sammy picks, `chooseVariant` is Sammy's choice, the
 * inner manager's switches are dropped, and Sammy switches itself once per video segment (filters.ts).
 */
import type { AdapterKit, MediaKind } from 'sammy-pacing-core';
import { buffersAhead, type Appending, type Ladder } from './ladder.js';
import type { AbrConfiguration, AbrManager, PlayerLike, SwitchCallback, Variant } from './shaka.js';

/** What every AbrManager of one attachment shares. */
export interface AbrHost {
  kit: AdapterKit;
  ladder: Ladder;
  player: PlayerLike;
  /** A new instance of the AbrManager Sammy wraps. */
  makeInner(): AbrManager;
  /** The player's current AbrManager (the one Shaka last initialised). */
  active: SammyAbrManager | undefined;
  configured(): void;
  mediaElement(element: HTMLMediaElement | null): void;
}

const inRange = (x: number, min: number, max: number) => x >= min && x <= max;

/** Shaka's StreamUtils.meetsRestrictions without the hardware limit: the `abr.restrictions` an AbrManager must apply. */
function meets(v: Variant, r: AbrConfiguration['restrictions']): boolean {
  const video = v.video;
  if (video?.width && video.height) {
    const [w, h] = video.height > video.width ? [video.height, video.width] : [video.width, video.height];
    if (!inRange(w, r.minWidth, r.maxWidth) || !inRange(h, r.minHeight, r.maxHeight) || !inRange(w * h, r.minPixels, r.maxPixels)) return false;
  }
  if (video?.frameRate && !inRange(video.frameRate, r.minFrameRate, r.maxFrameRate)) return false;
  if (v.audio?.channelsCount && !inRange(v.audio.channelsCount, r.minChannelsCount, r.maxChannelsCount)) return false;
  return inRange(v.bandwidth, r.minBandwidth, r.maxBandwidth);
}

const fast = (v: Variant) => !!(v.audio?.fastSwitching || v.video?.fastSwitching);
const pixels = (v: Variant) => (v.video?.width ?? 0) * (v.video?.height ?? 0);

/** Sammy's AbrManager, with what the attachment calls on it besides Shaka. */
export interface SammyAbrManager extends AbrManager {
  /**
   * Switches to Sammy's choice when it differs from the current one (while Sammy picks).
   * `appending`: the segment just downloaded, counted as buffered (the choice is then the one
   * the next request would get).
   */
  suggest(appending?: Appending): void;
  /** Hands the choice back to the inner manager now (Sammy switched off or detached). */
  yieldToInner(): void;
}

/**
 * A new AbrManager (plain closures rather than a class: its state's names then shrink in a
 * minified bundle). Shaka's calls are forwarded to the inner manager first, always.
 */
export function createAbrManager(host: AbrHost): SammyAbrManager {
  const { kit, ladder, player } = host;
  const { session } = kit;
  let inner = host.makeInner();
  let initialised = false;
  let config: AbrConfiguration | undefined;
  let variants: Variant[] = [];
  let switchTo: SwitchCallback | null = null;
  let enabled = false;
  /** The variant last chosen or switched to. */
  let last: Variant | null = null;

  /** The config the inner manager gets: in pace-only mode with a history, Shaka's start estimate from it. */
  const configureInner = () => {
    if (!config) return;
    const startKbps = kit.startKbps();
    // The browser's downlink estimate would replace the default one: off while the history speaks.
    inner.configure(startKbps === undefined ? config : { ...config, defaultBandwidthEstimate: startKbps * 1000, useNetworkInformation: false });
  };

  /**
   * Sammy's variant: among those Shaka would consider (fast-switching ones only when asked for,
   * `abr.restrictions` applied, the lowest one when none meets them), the video bitrate Sammy
   * picks, then the audio bitrate among those; of equals, the most pixels.
   */
  const choose = (preferFastSwitching?: boolean, appending?: Appending): Variant | undefined => {
    const all = variants.filter(Boolean);
    const normal = all.filter((v) => !fast(v));
    let pool = normal.length > 0 ? normal : all;
    if (preferFastSwitching && normal.length !== all.length) pool = all.filter(fast);
    const restrictions = config?.restrictions;
    let candidates = restrictions ? pool.filter((v) => meets(v, restrictions)) : pool;
    if (candidates.length === 0) candidates = pool.slice().sort((a, b) => a.bandwidth - b.bandwidth).slice(0, 1);
    const ahead = buffersAhead(player, appending);
    // abr.clearBufferSwitch: every switch clears the buffer past safeMarginSwitch and fetches it
    // again at the new rung, so a step up must afford that refetch (as with dash.js's fast switching;
    // the core counts the whole buffer, which errs on the safe side by the margin).
    const stepUpRefetchSeconds = config?.clearBufferSwitch ? Math.max(0, config.safeMarginSwitch || 0) : undefined;
    for (const kind of ['video', 'audio'] as MediaKind[]) {
      const kbps = (v: Variant) => (v[kind] ? ladder.of(v[kind]) : 0);
      const ladderKbps = [...new Set(candidates.map(kbps))].filter((k) => k > 0);
      if (ladderKbps.length === 0) continue;
      const choice = session.chooseBitrate({ mediaType: kind, ladderKbps, bufferLevelSeconds: ahead[kind], stepUpRefetchSeconds });
      if (choice) candidates = candidates.filter((v) => kbps(v) === choice.bitrateKbps);
    }
    return candidates.reduce<Variant | undefined>((best, v) => (!best || pixels(v) > pixels(best) || (pixels(v) === pixels(best) && v.bandwidth > best.bandwidth) ? v : best), undefined);
  };

  const self: SammyAbrManager = {
    init(switchCallback, disableStreamCallback) {
      // Shaka keeps its AbrManager across loads; a fresh inner one forgets the last session's
      // (paced) samples, so its first picks come from the start estimate, as Sammy's own do.
      if (initialised) {
        inner.release();
        inner = host.makeInner();
      }
      initialised = true;
      configureInner();
      switchTo = switchCallback;
      host.active = self;
      inner.init((variant, clearBuffer, safeMargin) => {
        if (kit.picks()) return;
        last = variant;
        return switchCallback(variant, clearBuffer, safeMargin);
      }, disableStreamCallback);
    },
    stop() {
      switchTo = last = null;
      enabled = false;
      if (host.active === self) host.active = undefined;
      inner.stop();
    },
    release() {
      self.stop();
      inner.release();
    },
    setVariants(next, isLowLatency) {
      variants = next;
      ladder.set(next);
      return inner.setVariants(next, isLowLatency);
    },
    chooseVariant(preferFastSwitching) {
      return (last = (kit.picks() && choose(preferFastSwitching)) || inner.chooseVariant(preferFastSwitching));
    },
    enable() {
      enabled = true;
      inner.enable();
      self.suggest();
    },
    disable() {
      enabled = false;
      inner.disable();
    },
    segmentDownloaded: (deltaTimeMs, numBytes, allowSwitch, request, context) => inner.segmentDownloaded(deltaTimeMs, numBytes, allowSwitch, request, context),
    trySuggestStreams() {
      inner.trySuggestStreams();
      self.suggest();
    },
    getBandwidthEstimate() {
      const kbps = kit.picks() ? session.estimateKbps('video') : undefined;
      return kbps === undefined ? inner.getBandwidthEstimate() : kbps * 1000;
    },
    playbackRateChanged: (rate) => inner.playbackRateChanged(rate),
    setMediaElement(mediaElement) {
      inner.setMediaElement(mediaElement);
      host.mediaElement(mediaElement);
    },
    setCmsdManager: (cmsdManager) => inner.setCmsdManager(cmsdManager),
    configure(next) {
      config = next;
      configureInner();
      host.configured();
    },
    suggest(appending) {
      if (!enabled || !switchTo || !kit.picks()) return;
      const variant = choose(undefined, appending);
      if (variant && variant !== last) switchTo((last = variant), config?.clearBufferSwitch, config?.safeMarginSwitch);
    },
    yieldToInner() {
      if (enabled) inner.trySuggestStreams();
    },
  };
  return self;
}

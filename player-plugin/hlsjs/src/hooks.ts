/**
 * Where the pieces hls.js constructs (the ABR controller, each fragment loader) find the Sammy
 * attached to their player: hls.js builds them from its config before `attach` runs, and hands
 * each the player's config object, so that object is the key.
 */
import type { FragmentLoaderContext, HlsConfig, LoaderStats } from './hls.js';

export interface SammyHooks {
  /** Sammy's level for the next main fragment; undefined: hls.js's own ABR decides. */
  chooseLevel(): number | undefined;
  /**
   * A fragment request leaving (hls.js's CMCD already in its URL or headers): sets its `rtp`.
   * Returns what to call with the loader's stats when it completes, for a media segment.
   */
  request(context: FragmentLoaderContext): ((stats: LoaderStats) => void) | undefined;
}

const attached = new WeakMap<HlsConfig, SammyHooks>();

export function hooksOf(config: HlsConfig | undefined | null): SammyHooks | undefined {
  return config ? attached.get(config) : undefined;
}

export function setHooks(config: HlsConfig, hooks: SammyHooks | undefined): void {
  if (hooks) attached.set(config, hooks);
  else attached.delete(config);
}

/**
 * Sammy's `fLoader`: the app's `fLoader` (or hls.js's `loader`), wrapped; its `load` lets the
 * attached Sammy set `rtp`. hls.js's CMCD controller wraps this loader in turn (createFragmentLoader)
 * and writes its payload first, so Sammy replaces one key of it. Playlists never come here.
 */
import type { FragmentLoaderContext, HlsConfig, Loader, LoaderCallbacks, LoaderConfiguration } from 'hls.js';
import { delegate } from 'sammy-pacing-core';
import { hooks } from './requests.js';

export type FragmentLoaderClass = new (config: HlsConfig) => Loader<FragmentLoaderContext>;

const sammyLoaders = new WeakSet<object>();
export const isSammyLoader = (loader: unknown): boolean => typeof loader === 'function' && sammyLoaders.has(loader);

/** An `fLoader` class around `Inner` (default: the player's `loader`, as hls.js itself would use). */
export function sammyFragmentLoader(Inner?: FragmentLoaderClass): FragmentLoaderClass {
  // A constructor that returns an object: `new` yields the delegate.
  const SammyFragmentLoader = function (config: HlsConfig) {
    const loader = new (Inner ?? (config.loader as unknown as FragmentLoaderClass))(config);
    const load = (context: FragmentLoaderContext, loaderConfig: LoaderConfiguration, callbacks: LoaderCallbacks<FragmentLoaderContext>) => {
      const ended = hooks.get(config)?.request(context);
      if (!ended) return loader.load(context, loaderConfig, callbacks);
      // The sample first: hls.js may ask for the next level while handling this response.
      const onSuccess: typeof callbacks.onSuccess = (response, stats, ...rest) => {
        ended(stats);
        callbacks.onSuccess(response, stats, ...rest);
      };
      loader.load(context, loaderConfig, { ...callbacks, onSuccess });
    };
    return delegate({ load }, () => loader);
  } as unknown as FragmentLoaderClass;
  sammyLoaders.add(SammyFragmentLoader);
  return SammyFragmentLoader;
}

/**
 * Sammy's fragment loader: it wraps the app's `fLoader` (or hls.js's `loader`) and, on each
 * load, lets the attached Sammy set the request's `rtp`. hls.js's CMCD controller wraps the
 * configured `fLoader` in turn (src/controller/cmcd-controller.ts, createFragmentLoader) and
 * writes its payload into `context.url` / `context.headers` before calling it, so here that
 * payload is complete: Sammy only replaces one key of it. Playlists never come here (`pLoader`).
 */
import { hooksOf } from './hooks.js';
import type { FragmentLoaderClass, FragmentLoaderContext, HlsConfig } from './hls.js';
import type { Loader, LoaderCallbacks, LoaderConfiguration } from 'hls.js';

const sammyLoaders = new WeakSet<object>();

export function isSammyLoader(loader: unknown): boolean {
  return typeof loader === 'function' && sammyLoaders.has(loader);
}

/** An `fLoader` class around `Inner` (default: the player's `loader`, as hls.js itself would use). */
export function sammyFragmentLoader(Inner?: FragmentLoaderClass): FragmentLoaderClass {
  class SammyFragmentLoader implements Loader<FragmentLoaderContext> {
    readonly #config: HlsConfig;
    readonly #loader: Loader<FragmentLoaderContext>;
    getCacheAge?: () => number | null;
    getResponseHeader?: (name: string) => string | null;

    constructor(config: HlsConfig) {
      this.#config = config;
      const Base = Inner ?? (config.loader as unknown as FragmentLoaderClass);
      const loader = (this.#loader = new Base(config));
      if (loader.getCacheAge) this.getCacheAge = () => loader.getCacheAge!();
      if (loader.getResponseHeader) this.getResponseHeader = (name) => loader.getResponseHeader!(name);
    }

    get stats() {
      return this.#loader.stats;
    }

    get context() {
      return this.#loader.context;
    }

    destroy(): void {
      this.#loader.destroy();
    }

    abort(): void {
      this.#loader.abort();
    }

    load(context: FragmentLoaderContext, config: LoaderConfiguration, callbacks: LoaderCallbacks<FragmentLoaderContext>): void {
      const completed = hooksOf(this.#config)?.request(context);
      if (!completed) return this.#loader.load(context, config, callbacks);
      this.#loader.load(context, config, {
        ...callbacks,
        onSuccess: (response, stats, ctx, details) => {
          // The sample first: hls.js may ask for the next level while handling this response.
          completed(stats);
          callbacks.onSuccess(response, stats, ctx, details);
        },
      });
    }
  }
  sammyLoaders.add(SammyFragmentLoader);
  return SammyFragmentLoader;
}

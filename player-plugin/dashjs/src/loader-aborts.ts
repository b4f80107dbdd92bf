/**
 * Makes dash.js 5.2's aborts abort again with CMCD on (Sammy turns it on to carry `rtp`): its CMCD
 * interceptor hands the loader a copy of each request, so HTTPLoader's `abort()` reached nothing
 * (the README's "What the adapter works around").
 */
import type { MediaPlayerClass } from 'dashjs';
import type { LoadingData } from './player.js';

/** The downloads in flight on the loader each dash.js request object went to. Module-wide: dash.js keeps a name's first extension for the player's lifetime, past a detach and a new attach. */
const loaderOf = new WeakMap<object, Set<LoadingData>>();

/** Installs the extension (once per player: dash.js ignores a second extension of a name). */
export function extendLoaderAborts(player: MediaPlayerClass): void {
  function extension(this: { parent: { load(config: { request?: object }): unknown; abort(): void } }) {
    // The parent's own methods, taken now: dash.js then puts these in their place on the parent.
    const [load, abort] = [this.parent.load.bind(this.parent), this.parent.abort.bind(this.parent)];
    const loading = new Set<LoadingData>();
    return {
      load(config: { request?: object }) {
        if (config?.request) loaderOf.set(config.request, loading);
        return load(config);
      },
      abort() {
        abort();
        // Each once: the handle of a request dash.js itself aborted is a no-op.
        for (const data of loading) {
          loading.delete(data);
          data.abort?.();
        }
      },
    };
  }
  player.extend('HTTPLoader', extension, true);
}

/** The request interceptor files the copy dash.js loads under its loader; the response interceptor, which every ending download passes, takes it out. */
export function inFlight(data: LoadingData | undefined, loading: boolean): void {
  const downloads = data?.request && loaderOf.get(data.request);
  if (downloads && loading) downloads.add(data!);
  else downloads?.delete(data!);
}

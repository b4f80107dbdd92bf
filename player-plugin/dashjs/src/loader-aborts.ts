/**
 * Makes dash.js's aborts abort again while CMCD is on (Sammy always turns it on, to carry `rtp`).
 *
 * The bug, in dash.js 5.2: its CMCD request interceptor returns a copy of each request with a
 * new `customData`. The loader then sets its abort handle on the copy's `customData`, while
 * HTTPLoader keeps the original to abort, so HTTPLoader's `abort()` aborts nothing: not on a
 * seek, a quality or track switch, the abandon rule or a reset. With downloads paced to seconds,
 * this bites: after a seek the old segment keeps downloading, competing with the new position,
 * and when it lands after the stream's last segment was requested, dash.js signals end of stream
 * while that last segment is still on its way — appending it reopens the MediaSource, and
 * playback never ends.
 *
 * The fix goes through dash.js's own extension point (`player.extend('HTTPLoader', …, true)`,
 * which must come before dash.js creates its loaders, i.e. before `initialize`): each HTTPLoader
 * remembers the requests it was given; the request interceptor (which sees the copy dash.js will
 * load) files the copy's `customData` under that loader; the response interceptor (which every
 * ending download passes, aborted or not) takes it out. The loader's `abort()` then also aborts
 * what it still holds — once: the handle of a request aborted by dash.js itself is a no-op.
 */
import type { MediaPlayerClass } from 'dashjs';
import type { DashRequest, DashResponse, LoadingData } from './player.js';

/** The HTTPLoader methods the extension wraps. */
interface HttpLoaderLike {
  load(config: { request?: object }): unknown;
  abort(): void;
}

/**
 * The in-flight set of the loader each dash.js request object was handed to. Module-wide:
 * dash.js keeps the first extension of a name for the player's lifetime, past a detach and a
 * second attach, and those two attaches' interceptors must feed the same extension.
 */
const loaderOf = new WeakMap<object, Set<LoadingData>>();

/** Installs the extension; once per player (dash.js ignores a second extension of a name). */
export function extendLoaderAborts(player: MediaPlayerClass): void {
  player.extend(
    'HTTPLoader',
    function (this: { parent: HttpLoaderLike }) {
      // The parent's own methods, taken now: dash.js then puts these in their place on the parent.
      const parent = this.parent;
      const load = parent.load.bind(parent);
      const abort = parent.abort.bind(parent);
      const loading = new Set<LoadingData>();
      return {
        load(config: { request?: object }) {
          if (config?.request) loaderOf.set(config.request, loading);
          return load(config);
        },
        abort() {
          abort();
          for (const data of loading) {
            loading.delete(data);
            data.abort?.();
          }
        },
      };
    },
    true,
  );
}

/** The request interceptor's part: the copy dash.js is about to load is in flight under its loader. */
export function loading(request: DashRequest): void {
  const data = request.customData;
  if (data?.request) loaderOf.get(data.request)?.add(data);
}

/** The response interceptor's part: this download has ended. */
export function ended(response: DashResponse): void {
  const data = response.request?.customData;
  if (data?.request) loaderOf.get(data.request)?.delete(data);
}

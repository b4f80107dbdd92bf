/**
 * The slice of hls.js 1.x the adapter uses. Types come from hls.js itself (type-only imports,
 * erased: the page brings its own hls.js); event names are spelled out so the adapter needs no
 * runtime import of hls.js.
 */
import type Hls from 'hls.js';
import type { FragmentLoaderContext, HlsConfig, Loader, LoaderStats } from 'hls.js';

export type { Hls, HlsConfig, FragmentLoaderContext, LoaderStats };

/** A fragment loader class, as hls.js's `fLoader` / `loader` configs take one. */
export type FragmentLoaderClass = new (config: HlsConfig) => Loader<FragmentLoaderContext>;

/** hls.js's ABR controller as hls.js drives it (AbrComponentAPI, src/types/component-api.ts). */
export interface AbrControllerLike {
  firstAutoLevel: number;
  forcedAutoLevel: number;
  nextAutoLevel: number;
  readonly bwEstimator?: unknown;
  resetEstimator(abrEwmaDefaultEstimate?: number): void;
  destroy(): void;
}

export type AbrControllerClass = new (hls: Hls) => AbrControllerLike;


import { RECORD_EVENTS_PATH } from 'sammy-pacing-protocol';
import { DEFAULT_HLS_MASTER_PATH, DEFAULT_MANIFEST_PATH, HLS_MASTER_NAME, MANIFEST_NAME } from '@sammy/test-content/media-paths';
import type { StreamFormat } from './players/player.js';

/** Base URL of the origin in use: the configured one, or the page's own. */
export function originBase(origin: string, pageOrigin: string): string {
  return origin === '' ? pageOrigin : origin;
}

/**
 * What to play in one format: the origin's default ladder; a URL that names a file of this format
 * as it is; one that names the other format's file, this format's beside it (the content
 * generator writes `master.m3u8` next to `manifest.mpd`). Always absolute: Shaka's load() needs
 * it, and hls.js 1.7.4 sends the multivariant playlist without CMCD for a path.
 */
function streamUrl(
  origin: string,
  pageOrigin: string,
  own: { ext: string; defaultPath: string },
  other: { ext: string; name: string },
): string {
  const base = originBase(origin, pageOrigin);
  const path = new URL(base).pathname;
  if (path.endsWith(own.ext)) return base;
  if (path.endsWith(other.ext)) return new URL(other.name, base).href;
  return new URL(own.defaultPath, base + '/').href;
}

/** The DASH manifest (dash.js, Shaka Player). */
export function manifestUrl(origin: string, pageOrigin: string): string {
  return streamUrl(origin, pageOrigin, { ext: '.mpd', defaultPath: DEFAULT_MANIFEST_PATH }, { ext: '.m3u8', name: MANIFEST_NAME });
}

/** The HLS multivariant playlist (hls.js). */
export function playlistUrl(origin: string, pageOrigin: string): string {
  return streamUrl(origin, pageOrigin, { ext: '.m3u8', defaultPath: DEFAULT_HLS_MASTER_PATH }, { ext: '.mpd', name: HLS_MASTER_NAME });
}

export function sourceUrl(format: StreamFormat, origin: string, pageOrigin: string): string {
  return format === 'hls' ? playlistUrl(origin, pageOrigin) : manifestUrl(origin, pageOrigin);
}

/**
 * The SSE stream of delivery records, when the origin can be expected to publish one: the
 * reference origin does, and it is the one serving this page. A Fastly service does not, and
 * asking it (cross-origin, without CORS) would only put a failed request in the console; then
 * the page shows no achieved rates, only the `Server-Timing` figures on each response.
 */
export function recordEventsUrl(origin: string, pageOrigin: string): string | undefined {
  const base = new URL(originBase(origin, pageOrigin));
  if (base.origin !== new URL(pageOrigin).origin) return undefined;
  return new URL(RECORD_EVENTS_PATH, base.origin).href;
}

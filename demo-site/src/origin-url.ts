import { DEFAULT_MANIFEST_PATH, RECORD_EVENTS_PATH } from 'sammy-pacing-protocol';

/** Base URL of the origin in use: the configured one, or the page's own. */
export function originBase(origin: string, pageOrigin: string): string {
  return origin === '' ? pageOrigin : origin;
}

/** The manifest to play: the origin's default ladder, unless the origin setting already names an `.mpd`. */
export function manifestUrl(origin: string, pageOrigin: string): string {
  const base = originBase(origin, pageOrigin);
  if (new URL(base).pathname.endsWith('.mpd')) return base;
  return new URL(DEFAULT_MANIFEST_PATH, base + '/').href;
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

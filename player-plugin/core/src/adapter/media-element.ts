/**
 * A media element's events as the session's playback events, for the adapters whose player
 * hands over its element (Shaka, hls.js): a stall is `waiting`, playback (re)starts at
 * `playing`, and the media time comes with `timeupdate`.
 */
import type { PlaybackEvent } from '../policy/phase.js';

const EVENTS = ['playing', 'seeking', 'seeked', 'waiting', 'timeupdate'] as const;

/** Feeds `element`'s playback events to `feed` until the returned function is called. */
export function listenToMediaElement(element: HTMLMediaElement, feed: (event: PlaybackEvent) => void): () => void {
  const listener = (e: Event) => {
    const type = e.type as (typeof EVENTS)[number];
    feed(type === 'timeupdate' ? { type, mediaTimeSeconds: element.currentTime } : { type });
  };
  for (const type of EVENTS) element.addEventListener(type, listener);
  return () => {
    for (const type of EVENTS) element.removeEventListener(type, listener);
  };
}

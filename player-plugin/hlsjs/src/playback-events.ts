/**
 * The media element's events as the session's playback events: a stall is `waiting`, playback
 * (re)starts at `playing`, and the media time comes with `timeupdate`. hls.js hands the element
 * over in MEDIA_ATTACHED and takes it back in MEDIA_DETACHING.
 */
import type { PlaybackEvent } from 'sammy-pacing-core';

const EVENTS = ['playing', 'seeking', 'seeked', 'waiting', 'timeupdate'] as const;

/** Listens to `media` until the returned function is called. */
export function listenToMedia(media: HTMLMediaElement, feed: (event: PlaybackEvent) => void): () => void {
  const listener = (e: Event) => {
    const type = e.type as (typeof EVENTS)[number];
    feed(type === 'timeupdate' ? { type, mediaTimeSeconds: media.currentTime } : { type });
  };
  for (const type of EVENTS) media.addEventListener(type, listener);
  return () => {
    for (const type of EVENTS) media.removeEventListener(type, listener);
  };
}

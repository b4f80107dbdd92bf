/**
 * A media element's events as the session's playback events, for the adapters whose player
 * hands over its element (Shaka, hls.js): a stall is `waiting`, playback (re)starts at
 * `playing`, and the media time comes with `timeupdate`.
 */
import type { PlaybackEvent } from '../policy/phase.js';

const EVENTS = ['playing', 'seeking', 'seeked', 'waiting', 'timeupdate'] as const;

/**
 * Follows the player's media element: each call moves `feed` to the element given (null or
 * undefined: none), so a player that attaches, detaches or swaps its element is fed from the one
 * it plays on.
 */
export function followMediaElement(feed: (event: PlaybackEvent) => void): (element: HTMLMediaElement | null | undefined) => void {
  let current: HTMLMediaElement | null | undefined;
  const listener = (e: Event) => {
    const type = e.type as (typeof EVENTS)[number];
    feed(type === 'timeupdate' ? { type, mediaTimeSeconds: current!.currentTime } : { type });
  };
  return (element) => {
    if (element === current) return;
    for (const type of EVENTS) current?.removeEventListener(type, listener);
    current = element;
    for (const type of EVENTS) current?.addEventListener(type, listener);
  };
}

/**
 * Playback as the session sees it: a new load (Shaka's `loading`), and the media element's own
 * events. Shaka stalls by setting the element's playback rate to 0 (its PlayRateController), when
 * the element may fire no `waiting`: Shaka's `buffering` event (true) counts as a stall too;
 * playback resumes with `playing` or the media time moving on.
 */
import type { PlaybackEvent, SammySession } from 'sammy-pacing-core';
import type { PlayerLike } from './shaka.js';

const ELEMENT_EVENTS = ['playing', 'seeking', 'seeked', 'waiting', 'timeupdate'] as const;

/** `onLoad`: also called when a load starts. */
export function playbackEvents(player: PlayerLike, session: SammySession, onLoad: () => void) {
  let element: HTMLMediaElement | null = null;
  const onElement = (e: Event) => {
    const type = e.type as (typeof ELEMENT_EVENTS)[number];
    session.playback(type === 'timeupdate' ? { type, mediaTimeSeconds: element?.currentTime ?? NaN } : ({ type } as PlaybackEvent));
  };
  const onLoading = () => {
    onLoad();
    session.playback({ type: 'load' });
  };
  const onBuffering = (e: Event) => {
    if ((e as Event & { buffering?: boolean }).buffering) session.playback({ type: 'waiting' });
  };
  const bind = (next: HTMLMediaElement | null) => {
    if (next === element) return;
    for (const type of ELEMENT_EVENTS) element?.removeEventListener(type, onElement);
    element = next;
    for (const type of ELEMENT_EVENTS) element?.addEventListener(type, onElement);
  };
  player.addEventListener('loading', onLoading);
  player.addEventListener('buffering', onBuffering);
  bind(player.getMediaElement());
  return {
    bind,
    unbind() {
      bind(null);
      player.removeEventListener('loading', onLoading);
      player.removeEventListener('buffering', onBuffering);
    },
  };
}

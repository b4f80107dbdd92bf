/**
 * Playback as the session sees it: a new load (Shaka's `loading`), and the media element's own
 * events. Shaka stalls by setting the element's playback rate to 0 (its PlayRateController), when
 * the element may fire no `waiting`: Shaka's `buffering` event (true) counts as a stall too.
 */
import { listenToMediaElement, type SammySession } from 'sammy-pacing-core';
import type { PlayerLike } from './shaka.js';

/** `onLoad`: also called when a load starts. */
export function playbackEvents(player: PlayerLike, session: SammySession, onLoad: () => void) {
  const feed = session.playback.bind(session);
  let element: HTMLMediaElement | null = null;
  let unlisten: (() => void) | undefined;
  const onLoading = () => {
    onLoad();
    feed({ type: 'load' });
  };
  const onBuffering = (e: Event) => {
    if ((e as Event & { buffering?: boolean }).buffering) feed({ type: 'waiting' });
  };
  const bind = (next: HTMLMediaElement | null) => {
    if (next === element) return;
    unlisten?.();
    element = next;
    unlisten = element ? listenToMediaElement(element, feed) : undefined;
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

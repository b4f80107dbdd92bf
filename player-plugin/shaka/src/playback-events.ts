// Playback as the session sees it: Shaka's `loading` (a new load), its `buffering` (a stall: Shaka stalls at
// playback rate 0, when the element may fire no `waiting`) and its media element's events (`follow` moves them).
import { followMediaElement, type SammySession } from 'sammy-pacing-core';
import type { PlayerLike } from './shaka.js';

export function playbackEvents(player: PlayerLike, session: SammySession, onLoad: () => void) {
  const feed = session.playback; // (the session's methods are closures: no `this`)
  const follow = followMediaElement(feed);
  const onLoading = () => {
    onLoad();
    feed({ type: 'load' });
  };
  const onBuffering = (e: Event & { buffering?: boolean }) => e.buffering && feed({ type: 'waiting' });
  player.addEventListener('loading', onLoading);
  player.addEventListener('buffering', onBuffering);
  follow(player.getMediaElement());
  const stop = () => {
    follow(null);
    player.removeEventListener('loading', onLoading);
    player.removeEventListener('buffering', onBuffering);
  };
  return { follow, stop };
}

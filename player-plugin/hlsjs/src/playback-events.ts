/**
 * hls.js's playback as the session's playback events. The media element's own events: a stall
 * is `waiting`, playback (re)starts at `playing`, and the media time comes with `timeupdate`;
 * hls.js hands the element over in MEDIA_ATTACHED and takes it back in MEDIA_DETACHING, and a new
 * source starts at MANIFEST_LOADING.
 */
import type { PlaybackEvent } from 'sammy-pacing-core';
import type { Hls } from './hls.js';
import type { AbandonedFragment } from './requests.js';

const EVENTS = ['playing', 'seeking', 'seeked', 'waiting', 'timeupdate'] as const;

/** Listens to `media` until the returned function is called. */
function listenToMedia(media: HTMLMediaElement, feed: (event: PlaybackEvent) => void): () => void {
  const listener = (e: Event) => {
    const type = e.type as (typeof EVENTS)[number];
    feed(type === 'timeupdate' ? { type, mediaTimeSeconds: media.currentTime } : { type });
  };
  for (const type of EVENTS) media.addEventListener(type, listener);
  return () => {
    for (const type of EVENTS) media.removeEventListener(type, listener);
  };
}

/** The emitter side of hls.js, with event names as strings (the adapter imports no hls.js enum). */
interface EventsLike {
  on(event: string, listener: (event: string, data: never) => void): void;
  off(event: string, listener: (event: string, data: never) => void): void;
}

/**
 * Feeds hls.js's playback to `feed` until the returned function is called; `loading`: a new
 * source (after its 'load'), `abandoned`: hls.js's emergency abandon rule aborted a fragment.
 */
export function listenToPlayback(hls: Hls, feed: (event: PlaybackEvent) => void, on: { loading(): void; abandoned(data: AbandonedFragment): void }): () => void {
  let unlisten = hls.media ? listenToMedia(hls.media, feed) : undefined;
  const onMediaDetaching = () => {
    unlisten?.();
    unlisten = undefined;
  };
  // hls.js 1.x event names (src/events.ts: MEDIA_ATTACHED, MEDIA_DETACHING, MANIFEST_LOADING,
  // FRAG_LOAD_EMERGENCY_ABORTED), as strings: the adapter has no runtime import of hls.js.
  const listeners: Array<[string, (event: string, data: never) => void]> = [
    [
      'hlsMediaAttached',
      (_: string, data: { media: HTMLMediaElement }) => {
        unlisten?.();
        unlisten = listenToMedia(data.media, feed);
      },
    ],
    ['hlsMediaDetaching', onMediaDetaching],
    [
      'hlsManifestLoading',
      () => {
        feed({ type: 'load' });
        on.loading();
      },
    ],
    ['hlsFragLoadEmergencyAborted', (_: string, data: AbandonedFragment) => on.abandoned(data)],
  ];
  const events = hls as unknown as EventsLike;
  for (const [event, listener] of listeners) events.on(event, listener);
  return () => {
    for (const [event, listener] of listeners) events.off(event, listener);
    onMediaDetaching();
  };
}

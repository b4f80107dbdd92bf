/**
 * hls.js's playback as the session's playback events: the media element's own events, from
 * MEDIA_ATTACHED (hls.js hands the element over) to MEDIA_DETACHING, and a new source at
 * MANIFEST_LOADING.
 */
import { listenToMediaElement, type PlaybackEvent } from 'sammy-pacing-core';
import type { Hls } from './hls.js';
import type { AbandonedFragment } from './requests.js';

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
  let unlisten = hls.media ? listenToMediaElement(hls.media, feed) : undefined;
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
        unlisten = listenToMediaElement(data.media, feed);
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

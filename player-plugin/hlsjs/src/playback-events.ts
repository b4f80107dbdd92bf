import type Hls from 'hls.js';
import { followMediaElement, type PlaybackEvent } from 'sammy-pacing-core';
import type { AbandonedFragment } from './requests.js';

type Listener = (event: string, data: never) => void;

/**
 * Feeds hls.js's playback until the returned function is called: the media element's events from MEDIA_ATTACHED (hls.js hands
 * it over) to MEDIA_DETACHING; `loading`: a new source (MANIFEST_LOADING, after its 'load'); `abandoned`: the abandon rule aborted a fragment.
 */
export function listenToPlayback(
  hls: Hls,
  feed: (event: PlaybackEvent) => void,
  on: { loading(): void; abandoned(data: AbandonedFragment): void },
): () => void {
  const follow = followMediaElement(feed);
  follow(hls.media);
  // hls.js 1.x event names (src/events.ts), as strings: the adapter has no runtime import of hls.js.
  const listeners = Object.entries<Listener>({
    hlsMediaAttached: (_, data: { media: HTMLMediaElement }) => follow(data.media),
    hlsMediaDetaching: () => follow(null),
    hlsManifestLoading: () => {
      feed({ type: 'load' });
      on.loading();
    },
    hlsFragLoadEmergencyAborted: (_, data: AbandonedFragment) => on.abandoned(data),
  });
  const events = hls as unknown as Record<'on' | 'off', (event: string, listener: Listener) => void>;
  for (const [event, listener] of listeners) events.on(event, listener);
  return () => {
    for (const [event, listener] of listeners) events.off(event, listener);
    follow(null);
  };
}

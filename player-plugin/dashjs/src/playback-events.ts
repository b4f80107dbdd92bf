/**
 * dash.js's playback events as the session's playback events. A stall is the media element's
 * `waiting` (dash.js's bufferStalled can report an empty buffer for a moment while playback goes
 * on); the media time comes with playbackTimeUpdated.
 */
import type { PlaybackTimeUpdatedEvent } from 'dashjs';
import type { PlaybackEvent } from 'sammy-pacing-core';

/** Each dash.js 5 event the adapter listens to (MediaPlayerEvents) and the playback event it is. */
export const PLAYBACK_EVENTS = [
  ['manifestLoaded', 'load'],
  ['playbackPlaying', 'playing'],
  ['playbackSeeking', 'seeking'],
  ['playbackSeeked', 'seeked'],
  ['playbackWaiting', 'waiting'],
  ['playbackTimeUpdated', 'timeupdate'],
] as const satisfies ReadonlyArray<readonly [string, PlaybackEvent['type']]>;

export const playbackEvent = (type: PlaybackEvent['type'], e: Partial<PlaybackTimeUpdatedEvent>): PlaybackEvent =>
  type === 'timeupdate' ? { type, mediaTimeSeconds: e.time ?? NaN } : { type };

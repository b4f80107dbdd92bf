/**
 * dash.js's playback events as the session's playback events. A stall is the media element's
 * `waiting` (dash.js's bufferStalled can report an empty buffer for a moment while playback goes
 * on); the media time comes with playbackTimeUpdated.
 */
import type { PlaybackEvent } from 'sammy-pacing-core';
import { DASH_EVENTS, type PlayerEventLike } from './player.js';

export const PLAYBACK_EVENTS: ReadonlyArray<readonly [string, (e: PlayerEventLike) => PlaybackEvent]> = [
  [DASH_EVENTS.manifestLoaded, () => ({ type: 'load' })],
  [DASH_EVENTS.playbackPlaying, () => ({ type: 'playing' })],
  [DASH_EVENTS.playbackSeeking, () => ({ type: 'seeking' })],
  [DASH_EVENTS.playbackSeeked, () => ({ type: 'seeked' })],
  [DASH_EVENTS.playbackWaiting, () => ({ type: 'waiting' })],
  [DASH_EVENTS.playbackTimeUpdated, (e) => ({ type: 'timeupdate', mediaTimeSeconds: e.time ?? NaN })],
];

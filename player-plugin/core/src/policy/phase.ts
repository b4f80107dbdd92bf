import type { Phase } from './types.js';

/**
 * What a player reports about playback, in media-element terms (every player has them):
 * a new source, `playing`, `seeking`/`seeked`, `waiting` (a stall: the element ran out of data)
 * and the media time advancing.
 */
export type PlaybackEvent =
  { type: 'load' | 'playing' | 'seeking' | 'seeked' | 'waiting' } | { type: 'timeupdate'; mediaTimeSeconds: number };

export interface PlaybackState {
  phase: Phase;
  /** Between `seeking` and `seeked`: time updates then are the seek's, not playback. */
  seeking: boolean;
  /** Media time of the last time update since load or the last seek, seconds (NaN: none). */
  lastMediaTimeSeconds: number;
}

export const INITIAL_PLAYBACK_STATE: Readonly<PlaybackState> = Object.freeze({
  phase: 'initial',
  seeking: false,
  lastMediaTimeSeconds: NaN,
});

/**
 * Initial phase from load until playback starts, and again after a seek or a stall until it
 * resumes: there the priority is a quick start, so nothing is paced (paper, Section 4.1).
 * Playback has resumed when `playing` fires or, after a seek within the buffer where no
 * `playing` comes, when the media time moves forward again.
 */
export function nextPlaybackState(state: Readonly<PlaybackState>, event: PlaybackEvent): PlaybackState {
  switch (event.type) {
    case 'load':
      return { ...INITIAL_PLAYBACK_STATE };
    case 'playing':
      return { ...state, phase: 'playing' };
    case 'seeking':
      return { ...state, phase: 'initial', seeking: true };
    case 'seeked':
      return { ...state, seeking: false, lastMediaTimeSeconds: NaN };
    case 'waiting':
      return { ...state, phase: 'initial' };
    case 'timeupdate': {
      const t = event.mediaTimeSeconds;
      const resumed = state.phase === 'initial' && !state.seeking && t > state.lastMediaTimeSeconds;
      return { ...state, phase: resumed ? 'playing' : state.phase, lastMediaTimeSeconds: t };
    }
  }
}

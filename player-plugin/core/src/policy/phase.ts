import type { Phase } from '../types.js';

/** What moves a session between phases. */
export type PlaybackEvent = 'load' | 'playing' | 'seeking' | 'stalled';

/**
 * Initial phase from load until playback starts, and again after a seek or a stall until it
 * resumes: there the priority is a quick start, so nothing is paced (paper, Section 4.1).
 */
export function nextPhase(_current: Phase, event: PlaybackEvent): Phase {
  return event === 'playing' ? 'playing' : 'initial';
}

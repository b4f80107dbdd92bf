/** What hls.js knows about the stream when a request leaves: the ladder, buffer levels, the full-buffer level. */
import type { MediaKind, TrackState } from 'sammy-pacing-core';
import type { Hls } from './hls.js';

const finite = (value: number | undefined) => (typeof value === 'number' && Number.isFinite(value) ? Math.max(0, value) : 0);

/** The forward buffer of the main (video, or muxed) stream, seconds. */
export function mainBufferSeconds(hls: Hls): number {
  return finite(hls.mainForwardBufferInfo?.len);
}

/** The forward buffer of the alternate audio rendition, seconds; undefined without one. */
function audioBufferSeconds(hls: Hls): number | undefined {
  const info = hls.audioForwardBufferInfo;
  return info ? finite(info.len) : undefined;
}

/**
 * The levels hls.js may pick automatically: minAutoLevel…maxAutoLevel (autoLevelCapping,
 * capLevelToPlayerSize, minAutoBitrate and HDCP limits applied). Their BANDWIDTH (`bitrate`, bps).
 */
export function autoLevelRange(hls: Hls): { min: number; max: number } {
  const count = hls.levels.length;
  const max = hls.maxAutoLevel;
  return { min: Math.max(0, Math.min(hls.minAutoLevel, count - 1)), max: max >= 0 && max < count ? max : count - 1 };
}

/** Highest BANDWIDTH hls.js may pick, kbps (0 before the playlist is parsed). */
function topLevelKbps(hls: Hls): number {
  const { max } = autoLevelRange(hls);
  let top = 0;
  for (let i = 0; i <= max; i++) top = Math.max(top, hls.levels[i]?.bitrate ?? 0);
  return top / 1000;
}

/**
 * The stream's media types for the session. A variant's BANDWIDTH already counts its audio
 * rendition (RFC 8216, 4.3.4.2), so the pace base is the top variant's BANDWIDTH alone, and an
 * alternate audio rendition adds nothing to it (ladderTopKbps 0); its buffer still bounds the
 * pace's, through the video entry's (the pace follows the buffer that stalls first).
 */
export function trackStates(hls: Hls, requesting: MediaKind): Partial<Record<MediaKind, TrackState>> {
  const main = mainBufferSeconds(hls);
  const audio = audioBufferSeconds(hls);
  const tracks: Partial<Record<MediaKind, TrackState>> = {
    video: { ladderTopKbps: topLevelKbps(hls), bufferLevelSeconds: audio === undefined ? main : Math.min(main, audio) },
  };
  if (audio !== undefined || requesting === 'audio') tracks.audio = { ladderTopKbps: 0, bufferLevelSeconds: audio ?? 0 };
  return tracks;
}

/** The buffer level hls.js aims for, seconds: `maxBufferLength` (default 30). */
export function playerBufferTargetSeconds(hls: Hls): number {
  const value = hls.config.maxBufferLength;
  return typeof value === 'number' && value > 0 && Number.isFinite(value) ? value : 30;
}

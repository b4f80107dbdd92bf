/** What dash.js knows about the stream when a request leaves: ladder tops, buffer levels, the full-buffer level. */
import type { MediaKind, MediaRequest } from 'sammy-pacing-core';
import type { PlayerLike } from './player.js';

function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}

export function bufferLevelSeconds(player: PlayerLike, type: MediaKind): number {
  try {
    return Math.max(0, finiteOr(player.getBufferLength(type), 0));
  } catch {
    return 0;
  }
}

function topBitrateKbps(player: PlayerLike, type: MediaKind): number {
  try {
    const reps = player.getRepresentationsByType(type) ?? [];
    return reps.reduce((max, r) => Math.max(max, r.bitrateInKbit ?? (r.bandwidth ?? 0) / 1000), 0);
  } catch {
    return 0;
  }
}

/** Each media type's ladder top and buffer, as the kit takes them (it builds the session's tracks). */
export const streamOf = (player: PlayerLike): Pick<MediaRequest, 'ladderTopKbps' | 'bufferLevelSeconds'> => ({
  ladderTopKbps: { video: topBitrateKbps(player, 'video'), audio: topBitrateKbps(player, 'audio') },
  bufferLevelSeconds: { video: bufferLevelSeconds(player, 'video'), audio: bufferLevelSeconds(player, 'audio') },
});

/**
 * The buffer level dash.js itself aims for at top quality (its long-form value for long content;
 * `longForm` given: that one, whatever the content).
 */
export function playerBufferTargetSeconds(player: PlayerLike, longForm?: boolean): number {
  const buffer = player.getSettings().streaming?.buffer ?? {};
  longForm ??= finiteOr(player.duration(), 0) > (buffer.longFormContentDurationThreshold ?? 600);
  return (longForm ? buffer.bufferTimeAtTopQualityLongForm : buffer.bufferTimeAtTopQuality) ?? 30;
}

/**
 * The buffer level, seconds, from which a step up makes dash.js refetch its buffer at the new
 * rung, with fast switching on (`streaming.buffer.fastSwitchEnabled`; its default, null, means
 * on outside low-latency mode, counted as on); else undefined. dash.js refetches from 1.5 ×
 * the representation's declared segment duration, or 1.5 s where it declares none (a
 * SegmentTimeline): 1.5 s, which covers both. Sammy's rule steps up only where the refetch
 * leaves a buffer that still keeps the new rung (core: bufferAfterStepUp).
 */
export function stepUpRefetchSeconds(player: PlayerLike): number | undefined {
  return player.getSettings().streaming?.buffer?.fastSwitchEnabled === false ? undefined : 1.5;
}

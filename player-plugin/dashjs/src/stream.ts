/** What dash.js knows about the stream when a request leaves or its rule runs. */
import type { MediaPlayerClass } from 'dashjs';
import { positiveOr, type MediaKind, type MediaRequest } from 'sammy-pacing-core';

// dash.js throws on a media type the stream lacks, or before it has a stream: 0.
function orZero(read: () => number): number {
  try {
    return read();
  } catch {
    return 0;
  }
}

export const bufferLevelSeconds = (player: MediaPlayerClass, type: MediaKind) => orZero(() => positiveOr(player.getBufferLength(type), 0));
const ladderTopKbps = (player: MediaPlayerClass, type: MediaKind) =>
  orZero(() =>
    (player.getRepresentationsByType(type) ?? []).reduce((top, r) => Math.max(top, r.bitrateInKbit ?? (r.bandwidth ?? 0) / 1000), 0),
  );

/** Each media type's ladder top and buffer, as the kit takes them. */
export const streamOf = (player: MediaPlayerClass): Pick<MediaRequest, 'ladderTopKbps' | 'bufferLevelSeconds'> => ({
  ladderTopKbps: { video: ladderTopKbps(player, 'video'), audio: ladderTopKbps(player, 'audio') },
  bufferLevelSeconds: { video: bufferLevelSeconds(player, 'video'), audio: bufferLevelSeconds(player, 'audio') },
});

/** The buffer level dash.js aims for at top quality: its long-form value for long content (`longForm` given: that one, whatever the content). */
export function playerBufferTargetSeconds(player: MediaPlayerClass, longForm?: boolean): number {
  const buffer = player.getSettings().streaming?.buffer ?? {};
  longForm ??= positiveOr(player.duration(), 0) > (buffer.longFormContentDurationThreshold ?? 600);
  return (longForm ? buffer.bufferTimeAtTopQualityLongForm : buffer.bufferTimeAtTopQuality) ?? 30;
}

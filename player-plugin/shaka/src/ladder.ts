// The variants Shaka gives an AbrManager as a ladder per media type, and Shaka's buffer levels.
import type { MediaKind } from 'sammy-pacing-core';
import type { PlayerLike, Stream, Variant } from './shaka.js';

export const kinds = ['video', 'audio'] as const;

/** Each stream's kbps (by stream: the request filter has only the stream) and each type's top over this load's variants.
 *  A top never falls within a load: a pace based on what a ban leaves would leave no room to step back up. */
export function createLadder() {
  const kbps = new WeakMap<Stream, number>();
  const top = { video: 0, audio: 0 };
  return {
    top,
    reset: () => void (top.video = top.audio = 0), // a new load: the tops start afresh
    set(variants: readonly Variant[]) {
      for (const v of variants)
        for (const kind of kinds) {
          const stream = v[kind],
            other = v[kind === 'video' ? 'audio' : 'video'];
          if (!stream) continue;
          // Without a bandwidth of its own (HLS), what its variant leaves for it: all for video or audio alone, none for audio beside video.
          const k = (stream.bandwidth || (kind === 'audio' && other ? 0 : Math.max(0, v.bandwidth - (other?.bandwidth ?? 0)))) / 1000;
          kbps.set(stream, k);
          top[kind] = Math.max(top[kind], k);
        }
      // So that top video + top audio, the pace base, covers every variant's bandwidth: what Shaka's ABR holds its estimate to.
      for (const v of variants) if (v.video) top.video = Math.max(top.video, v.bandwidth / 1000 - top.audio);
    },
    of: (stream: Stream) => kbps.get(stream) ?? (stream.bandwidth ?? 0) / 1000,
  };
}
export type Ladder = ReturnType<typeof createLadder>;

/** A segment downloaded and not yet appended: Shaka appends it after its response filters run. */
export type Appending = { kind: MediaKind; startTime: number; endTime: number };

/** Seconds buffered ahead of the playhead per type (0: none or unknown), from one read of Shaka's buffered info (it builds every type's ranges). */
export function buffersAhead(player: PlayerLike, a?: Appending): Record<MediaKind, number> {
  const ahead = { video: 0, audio: 0 };
  let t = 0;
  try {
    t = player.getMediaElement()?.currentTime ?? 0;
    const info = player.getBufferedInfo();
    for (const kind of kinds) {
      const range = info[kind].find((r) => r.start <= t + 0.1 && r.end > t);
      if (range) ahead[kind] = Math.max(0, range.end - Math.max(t, range.start));
    }
  } catch {} // no media element or buffer yet: nothing buffered
  // The segment appending (`a`) counts as buffered: up to its end, at most its duration more.
  if (a) ahead[a.kind] = Math.max(ahead[a.kind], Math.min(a.endTime - t, ahead[a.kind] + a.endTime - a.startTime));
  return ahead;
}

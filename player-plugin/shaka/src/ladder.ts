/**
 * The ladder as Shaka gives it to an AbrManager (variants: a video and an audio stream each),
 * seen per media type as the session core wants it, and the buffer levels Shaka has.
 */
import type { MediaKind, TrackState } from 'sammy-pacing-core';
import type { PlayerLike, Stream, Variant } from './shaka.js';

const kinds = ['video', 'audio'] as const;

/**
 * A stream's bitrate, kbps: its own bandwidth; without one (HLS), what its variant's bandwidth
 * leaves for it — all of it for video (or an audio-only variant), none for audio beside video.
 */
function streamKbps(variant: Variant, kind: MediaKind): number {
  const stream = variant[kind];
  if (!stream) return 0;
  if (stream.bandwidth) return stream.bandwidth / 1000;
  const other = variant[kind === 'video' ? 'audio' : 'video'];
  return kind === 'audio' && other ? 0 : Math.max(0, variant.bandwidth - (other?.bandwidth ?? 0)) / 1000;
}

/**
 * The ladder of the variants Shaka has set in this load: each stream's bitrate and each media
 * type's top. The tops never fall within a load: Shaka drops a variant it bans for a while (its
 * dropped-frames check, a failed stream) from the set, and a pace based on what is left would
 * leave too little room to step back up once the ban ends.
 */
export interface Ladder {
  readonly top: Record<MediaKind, number>;
  set(variants: readonly Variant[]): void;
  /** A new load: the tops start afresh. */
  reset(): void;
  /** Bitrate of a stream, kbps. */
  of(stream: Stream): number;
}

export function createLadder(): Ladder {
  // Bitrate of every stream of the variants, kbps, by stream (the request filter has only the stream).
  const kbps = new WeakMap<Stream, number>();
  const top = { video: 0, audio: 0 };
  return {
    top,
    reset() {
      top.video = top.audio = 0;
    },
    set(variants) {
      for (const v of variants) {
        for (const kind of kinds) {
          const stream = v[kind];
          if (!stream) continue;
          const k = streamKbps(v, kind);
          kbps.set(stream, k);
          top[kind] = Math.max(top[kind], k);
        }
      }
      // The pace base (top video + top audio) covers every variant's own bandwidth, which is
      // what Shaka's ABR holds its estimate against.
      for (const v of variants) if (v.video) top.video = Math.max(top.video, v.bandwidth / 1000 - top.audio);
    },
    of: (stream) => kbps.get(stream) ?? (stream.bandwidth ?? 0) / 1000,
  };
}

/** A segment downloaded and not yet appended: Shaka appends it after its response filters run. */
export interface Appending {
  kind: MediaKind;
  startTime: number;
  endTime: number;
}

/**
 * Seconds buffered ahead of the playhead, per media type (0 when none or unknown). One read of
 * Shaka's buffered info (it builds every type's ranges at each call) for both types. With
 * `appending`, its kind counts that segment as buffered (up to its end, at most its duration more).
 */
export function buffersAhead(player: PlayerLike, appending?: Appending): Record<MediaKind, number> {
  const ahead = { video: 0, audio: 0 };
  let t = 0;
  try {
    t = player.getMediaElement()?.currentTime ?? 0;
    const info = player.getBufferedInfo();
    for (const kind of kinds) {
      const range = info[kind].find((r) => r.start <= t + 0.1 && r.end > t);
      if (range) ahead[kind] = Math.max(0, range.end - Math.max(t, range.start));
    }
  } catch {
    // No media element or buffer yet: nothing buffered.
  }
  if (appending) {
    const { kind, startTime, endTime } = appending;
    ahead[kind] = Math.max(ahead[kind], Math.min(endTime - t, ahead[kind] + endTime - startTime));
  }
  return ahead;
}

/** The stream's media types as the session wants them: ladder top and buffer, and always the requesting one. */
export function trackStates(player: PlayerLike, ladder: Ladder, requesting: MediaKind): Partial<Record<MediaKind, TrackState>> {
  const tracks: Partial<Record<MediaKind, TrackState>> = {};
  const ahead = buffersAhead(player);
  for (const kind of kinds) {
    if (ladder.top[kind] > 0 || kind === requesting) tracks[kind] = { ladderTopKbps: ladder.top[kind], bufferLevelSeconds: ahead[kind] };
  }
  return tracks;
}

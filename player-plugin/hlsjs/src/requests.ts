/**
 * hls.js's side of the kit's request pipeline and of Sammy's level choice, as the hooks its
 * fragment loader and ABR controller call (./hooks.ts). The carrier is hls.js's loader context
 * (its CMCD already in the URL or headers); a media fragment is a main or audio fragment that is
 * not an init segment; the download's time is the loader's own stats.
 */
import type { AdapterKit, MediaKind, SentRequest } from 'sammy-pacing-core';
import type { FragmentLoaderContext, Hls, LoaderStats } from './hls.js';
import type { SammyHooks } from './hooks.js';
import { autoLevelRange, mainBufferSeconds, trackStates } from './stream.js';

function mediaKindOf(frag: FragmentLoaderContext['frag']): MediaKind | undefined {
  if (frag.sn === 'initSegment') return undefined;
  return frag.type === 'main' ? 'video' : frag.type === 'audio' ? 'audio' : undefined;
}

/** What hls.js's emergency abandon event carries (FRAG_LOAD_EMERGENCY_ABORTED). */
export interface AbandonedFragment {
  frag: object;
  part: object | null;
  stats: LoaderStats;
}

export function createHooks(hls: Hls, kit: AdapterKit): SammyHooks & { abandoned(data: AbandonedFragment): void } {
  // Each media fragment (or part) in flight, by hls.js's own object.
  const inFlight = new WeakMap<object, SentRequest>();
  const finish = (key: object, bytes: number, durationMs: number) => {
    inFlight.get(key)?.done(bytes, durationMs);
    inFlight.delete(key);
  };
  return {
    chooseLevel() {
      const levels = hls.levels;
      if (!kit.picks() || levels.length === 0) return undefined;
      const { min, max } = autoLevelRange(hls);
      const ladderKbps: number[] = [];
      for (let i = min; i <= max; i++) ladderKbps.push(levels[i]!.bitrate / 1000);
      const choice = kit.session.chooseBitrate({ mediaType: 'video', ladderKbps, bufferLevelSeconds: mainBufferSeconds(hls) });
      if (!choice) return undefined;
      let level = min;
      for (let i = min; i <= max; i++) if (levels[i]!.bitrate / 1000 <= choice.bitrateKbps) level = i;
      return level;
    },
    // Every fragment, init segments included: hls.js's own rtp goes, Sammy's (if any) comes.
    request(context) {
      const { frag } = context;
      const sent = kit.send(context, () => {
        const mediaType = mediaKindOf(frag);
        const bitrate = mediaType === 'video' ? hls.levels[frag.level]?.bitrate : hls.allAudioTracks[frag.level]?.bitrate;
        return mediaType && { mediaType, bitrateKbps: (bitrate ?? 0) / 1000, tracks: trackStates(hls, mediaType) };
      });
      if (!sent.decision) return undefined;
      const key = context.part ?? frag;
      inFlight.set(key, sent);
      return (stats: LoaderStats) => finish(key, stats.loaded, stats.loading.end - stats.loading.start);
    },
    // hls.js's abandon rule gave up on a fragment: what it loaded until then is a sample too.
    abandoned: (data) => finish(data.part ?? data.frag, data.stats.loaded, performance.now() - data.stats.loading.start),
  };
}

/**
 * hls.js's side of Sammy's level choice and of the kit's request pipeline: hooks that its ABR controller and
 * fragment loader, built before `attach`, find by the config hls.js hands them. The carrier: the loader context.
 */
import type { default as Hls, FragmentLoaderContext, HlsConfig, LoaderStats } from 'hls.js';
import { positiveOr, type AdapterKit, type MediaRequest } from 'sammy-pacing-core';

export const hooks = new WeakMap<HlsConfig, ReturnType<typeof createHooks>>();

/** What hls.js's emergency abandon event carries (FRAG_LOAD_EMERGENCY_ABORTED). */
export type AbandonedFragment = { frag: object; part: object | null; stats: LoaderStats };

const mainBufferSeconds = (hls: Hls) => positiveOr(hls.mainForwardBufferInfo?.len, 0);

/** The levels hls.js may pick itself: minAutoLevel…maxAutoLevel (capping, player size, minAutoBitrate, HDCP applied). */
function autoLevelRange(hls: Hls): { min: number; max: number } {
  const count = hls.levels.length;
  const max = hls.maxAutoLevel;
  return { min: Math.max(0, Math.min(hls.minAutoLevel, count - 1)), max: max >= 0 && max < count ? max : count - 1 };
}

/**
 * A fragment as a media request (undefined: an init segment, or neither main nor audio). A
 * variant's BANDWIDTH counts its audio rendition (RFC 8216, 4.3.4.2), so the video top is the top
 * variant's and audio's 0; the audio buffer bounds the pace through video's (the first to stall).
 */
function mediaRequest(hls: Hls, frag: FragmentLoaderContext['frag']): MediaRequest | undefined {
  const mediaType = frag.sn === 'initSegment' ? undefined : frag.type === 'main' ? 'video' : frag.type === 'audio' ? 'audio' : undefined;
  if (!mediaType) return undefined;
  let top = 0;
  for (let i = 0; i <= autoLevelRange(hls).max; i++) top = Math.max(top, hls.levels[i]?.bitrate ?? 0);
  const main = mainBufferSeconds(hls);
  const audioInfo = hls.audioForwardBufferInfo;
  const audio = audioInfo ? positiveOr(audioInfo.len, 0) : undefined;
  return {
    mediaType,
    bitrateKbps: ((mediaType === 'video' ? hls.levels[frag.level] : hls.allAudioTracks[frag.level])?.bitrate ?? 0) / 1000,
    ladderTopKbps: { video: top / 1000, audio: 0 },
    bufferLevelSeconds: { video: Math.min(main, audio ?? main), audio: audio ?? 0 },
  };
}

export function createHooks(hls: Hls, kit: AdapterKit) {
  return {
    /** Sammy's level for the next main fragment (the highest its choice accepts); undefined: hls.js's own ABR decides. */
    chooseLevel(): number | undefined {
      if (!kit.picks() || hls.levels.length === 0) return undefined;
      const { min, max } = autoLevelRange(hls);
      const ladderKbps = hls.levels.slice(min, max + 1).map((level) => level.bitrate / 1000);
      const choice = kit.session.chooseBitrate({ mediaType: 'video', ladderKbps, bufferLevelSeconds: mainBufferSeconds(hls) });
      return choice && min + ladderKbps.reduce((best, kbps, i) => (kbps <= choice.bitrateKbps ? i : best), 0);
    },
    /** Sets every fragment's `rtp` (hls.js's own goes); for a paced one, what to call with the loader's stats when it completes. */
    request(context: FragmentLoaderContext): ((stats: LoaderStats) => void) | undefined {
      const key = context.part ?? context.frag;
      if (!kit.send(context, () => mediaRequest(hls, context.frag), key)) return undefined;
      return (stats) => void kit.ended(key, stats.loaded, stats.loading.end - stats.loading.start);
    },
    /** hls.js's abandon rule gave up on a fragment: what it loaded until then is a sample too. */
    abandoned: ({ frag, part, stats }: AbandonedFragment) =>
      void kit.ended(part ?? frag, stats.loaded, performance.now() - stats.loading.start),
  };
}

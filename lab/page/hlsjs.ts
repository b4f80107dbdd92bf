/**
 * hls.js arms, on the HLS playlists the content generator writes beside the MPD (same segments):
 *
 *   hlsjs-unpaced   hls.js defaults, no CMCD: the control
 *   hlsjs-sammy     `new Hls(sammyConfig())` + `attach(hls)` from sammy-pacing-hlsjs, defaults
 *   hlsjs-sammy-neighbour-first  the same with `attach(hls, { ...PRESETS.neighbourFirst })`
 *
 * Chunks from FRAG_LOADED, the rendered quality from LEVEL_SWITCHED (hls.js fires it when the
 * fragment under the playhead comes from another level). A level's bitrate is its variant's
 * BANDWIDTH, which in HLS counts the audio rendition too (~130 kbps above the DASH video bitrate).
 */
import Hls, { type HlsConfig } from 'hls.js';
import { attach, PRESETS, sammyConfig } from 'sammy-pacing-hlsjs';
import { unknownArm, type SetupPlayer } from './lab-page.js';

/**
 * The bench's buffer target as hls.js's: its target is maxBufferLength raised to what maxBufferSize
 * (60 MB) holds at the level's bitrate (~140 s of a 3.4 Mbps variant), capped by maxMaxBufferLength;
 * with both lengths at the target, the seconds decide, as for the other players.
 */
function bufferConfig(seconds: number | undefined): Partial<HlsConfig> {
  return seconds === undefined ? {} : { maxBufferLength: seconds, maxMaxBufferLength: seconds };
}

export const setup: SetupPlayer = (page) => {
  const { arm, bufferSeconds, m3u8Url } = page.params;
  if (!m3u8Url) throw new Error(`${arm} needs ?m3u8=<HLS multivariant playlist>`);
  const buffer = bufferConfig(bufferSeconds);

  let hls: Hls;
  switch (arm) {
    case 'hlsjs-unpaced':
      hls = new Hls(buffer);
      break;
    case 'hlsjs-sammy':
      // sammyConfig: hls.js builds its ABR controller and fragment loader in the constructor; attach before loadSource.
      hls = new Hls(sammyConfig(buffer));
      page.sammy(attach(hls));
      break;
    case 'hlsjs-sammy-neighbour-first':
      hls = new Hls(sammyConfig(buffer));
      page.sammy(attach(hls, { ...PRESETS.neighbourFirst }));
      break;
    default:
      throw unknownArm('hls.js', arm);
  }

  hls.on(Hls.Events.FRAG_LOADED, (_, { frag }) => {
    if (frag.sn === 'initSegment') return;
    const video = frag.type === 'main';
    const bitrate = video ? hls.levels[frag.level]?.bitrate : hls.audioTracks[frag.level]?.bitrate;
    page.chunk({
      url: frag.url,
      mediaType: video ? 'video' : frag.type,
      bitrateKbps: (bitrate ?? 0) / 1000,
      segmentSeconds: frag.duration,
      bytes: frag.stats.loaded,
    });
  });
  hls.on(Hls.Events.LEVEL_SWITCHED, (_, { level }) => {
    const bitrate = hls.levels[level]?.bitrate;
    if (bitrate) page.quality(bitrate / 1000);
  });
  // Non-fatal errors (a stalled buffer, a retried request) hls.js recovers from itself; stalls are counted from the element.
  hls.on(Hls.Events.ERROR, (_, data) => {
    if (data.fatal) page.error({ type: data.type, details: data.details, reason: data.reason ?? data.error?.message });
  });
  // Attached at page load, as an app does; loading the source is the play request.
  hls.attachMedia(page.video);

  return {
    start() {
      page.video.autoplay = true;
      hls.loadSource(m3u8Url);
    },
  };
};

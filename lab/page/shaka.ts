/**
 * Shaka Player 5 arms, on the DASH manifest:
 *
 *   shaka-unpaced   Shaka's defaults (SimpleAbrManager), no CMCD: the control
 *   shaka-sammy     `attach(player)` from sammy-pacing-shaka, defaults (Sammy's AbrManager, rtp in Shaka's CMCD)
 *   shaka-sammy-neighbour-first  `attach(player, { ...PRESETS.neighbourFirst })`
 *
 * Chunks come from a networking-engine response filter; the rendered quality from the playhead:
 * Shaka's `adaptation`/`variantchanged` fire when a variant is chosen, which with a deep buffer is
 * minutes before it is on screen.
 */
import shaka from 'shaka-player';
import { attach, PRESETS } from 'sammy-pacing-shaka';
import { unknownArm, type SetupPlayer } from './lab-page.js';
import { PlayheadQuality } from './playhead-quality.js';

/** shaka.net.NetworkingEngine.RequestType.SEGMENT and AdvancedRequestType.MEDIA_SEGMENT (public enums). */
const REQUEST_TYPE_SEGMENT = 1;
const MEDIA_SEGMENT = 1;

export const setup: SetupPlayer = async (page) => {
  const { arm, bufferSeconds } = page.params;
  shaka.polyfill.installAll();
  const player = new shaka.Player();
  // Attached at page load, as an app does; the load itself is the play request.
  await player.attach(page.video);
  // rebufferingGoal stays Shaka's 0: a stall is then the element's own `waiting`, as for the other players.
  if (bufferSeconds !== undefined) player.configure({ streaming: { bufferingGoal: bufferSeconds } });
  // Every arm: headless Chromium drops frames while the lab loads both cores, and Shaka's ABR would
  // ban the rung for 30 s (abr.droppedFrames), a verdict on the lab machine rather than on the link.
  player.configure({ abr: { droppedFrames: false } });

  switch (arm) {
    case 'shaka-unpaced':
      break;
    case 'shaka-sammy':
      // Before load(): Shaka makes its AbrManager and copies the request filters when a load starts.
      page.sammy(attach(player));
      break;
    case 'shaka-sammy-neighbour-first':
      page.sammy(attach(player, { ...PRESETS.neighbourFirst }));
      break;
    default:
      throw unknownArm('Shaka', arm);
  }

  const rendered = new PlayheadQuality(page.video, (kbps) => page.quality(kbps));
  player.getNetworkingEngine()!.registerResponseFilter((type, response, context) => {
    const stream = context?.stream;
    const segment = context?.segment;
    if (type !== REQUEST_TYPE_SEGMENT || context?.type !== MEDIA_SEGMENT || !stream || !segment) return;
    if (stream.type !== 'video' && stream.type !== 'audio') return;
    const kbps = (stream.bandwidth ?? 0) / 1000;
    if (stream.type === 'video') rendered.add(segment.getStartTime(), segment.getEndTime(), kbps);
    page.chunk({
      url: response.uri,
      mediaType: stream.type,
      bitrateKbps: kbps,
      segmentSeconds: segment.getEndTime() - segment.getStartTime(),
      bytes: response.data.byteLength,
    });
  });
  player.addEventListener('error', (e) => page.error((e as Event & { detail?: unknown }).detail ?? e.type));

  return {
    async start() {
      page.video.autoplay = true;
      try {
        await player.load(page.params.mpdUrl);
      } catch (error) {
        page.error(error);
      }
    },
  };
};

/** hls.js with sammy-pacing-hlsjs, playing the HLS multivariant playlist of the same ladder. */
import Hls from 'hls.js';
import { CONGESTION_CONTROL_HEADER } from 'sammy-pacing-protocol';
import { attach, sammyConfig } from 'sammy-pacing-hlsjs';
import type { CreatePlayer } from './player.js';

export const createPlayer: CreatePlayer = async ({ video, sammy: start, congestionControl, onError }) => {
  // Sammy's ABR controller and fragment loader go in at construction (sammyConfig), then attach.
  // hls.js fixes where its own CMCD travels here: playlists keep this transport even if the page
  // switches CMCD mode later (Sammy's setCmcdMode moves the fragments' whole payload).
  const hls = new Hls(
    sammyConfig({
      cmcd: { useHeaders: start.cmcdMode === 'header' },
      // The page loops the minute-long ladder. hls.js's default keeps everything behind the
      // playhead, so the loop would replay from memory and no segment would flow again; 30 s, as
      // Shaka's bufferBehind, and the loop fetches the start anew, as with the other players.
      backBufferLength: 30,
      xhrSetup(xhr: XMLHttpRequest, url: string) {
        const cc = congestionControl();
        if (cc === undefined) return;
        // Headers can only be set on an opened request; hls.js leaves an opened one as it is.
        if (xhr.readyState === XMLHttpRequest.UNSENT) xhr.open('GET', url, true);
        xhr.setRequestHeader(CONGESTION_CONTROL_HEADER, cc);
      },
    }),
  );
  const sammy = attach(hls, { enabled: start.enabled, cmcdMode: start.cmcdMode });
  hls.on(Hls.Events.ERROR, (_event, data) => {
    // Non-fatal errors are hls.js's to recover from (a stall, a retried fragment).
    if (data.fatal) onError(`hls.js error: ${data.type}: ${data.details}`);
  });
  hls.on(Hls.Events.MANIFEST_PARSED, () => void video.play().catch(() => undefined));
  // The element loops: hls.js flushes the back buffer of an ended stream only for a looping
  // element (buffer-controller.ts, flushBackBuffer), and seeks nowhere by itself at the end.
  video.loop = true;
  let attached = false;
  return {
    name: 'hlsjs',
    format: 'hls',
    raw: hls,
    sammy,
    load(url) {
      // Absolute: hls.js 1.7.4 sends the multivariant playlist without CMCD when given a path.
      hls.loadSource(url);
      if (attached) return;
      hls.attachMedia(video);
      attached = true;
    },
    bufferLevelSeconds() {
      // The main stream is video alone: the ladder's audio is an alternate rendition.
      return hls.mainForwardBufferInfo?.len;
    },
  };
};

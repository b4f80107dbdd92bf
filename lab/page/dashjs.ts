/**
 * dash.js 5 arms:
 *
 *   unpaced              dash.js default ABR, no CMCD: the control
 *   dashjs-rtp           dash.js's own CMCD, including its built-in `rtp` formula
 *   flat-cap             every request (manifest and startup included) carries rtp = 4 × top bitrate
 *   sammy                the Sammy plugin with its defaults (PRESETS.bufferAware's pace design)
 *   pace-only            dash.js's own ABR (DYNAMIC) with Sammy's pace: the plugin's pace-only mode
 *   sammy-paper          the Sammy plugin with PRESETS.paper (the paper's pace design)
 *   sammy-neighbour-first  the Sammy plugin with PRESETS.neighbourFirst (the neighbour's delay before the bitrate)
 *   sammy-fast-switch    the Sammy plugin with its defaults, dash.js's fast switching turned on by the app (the adapter turns it off)
 */
import { MediaPlayer, type LogLevel } from 'dashjs';
import { roundRtpKbps, writeRtp } from 'sammy-pacing-protocol';
import { attach, PRESETS } from 'sammy-pacing-dashjs';
import { paceOnly } from 'sammy-pacing-dashjs/pace-only';
import { unknownArm, type SetupPlayer } from './lab-page.js';

const LOG_LEVEL_WARNING = 3 as LogLevel;

interface FragmentEvent {
  request?: {
    url?: string;
    mediaType?: string;
    type?: string;
    bytesLoaded?: number;
    duration?: number;
    bandwidth?: number;
    representation?: { bandwidth?: number };
  };
}

export const setup: SetupPlayer = (page) => {
  const { arm, capKbps, bufferSeconds } = page.params;
  const player = MediaPlayer().create();
  player.updateSettings({ debug: { logLevel: LOG_LEVEL_WARNING } });
  if (bufferSeconds !== undefined) {
    player.updateSettings({
      streaming: {
        buffer: { bufferTimeAtTopQuality: bufferSeconds, bufferTimeAtTopQualityLongForm: bufferSeconds, bufferTimeDefault: bufferSeconds },
      },
    });
  }

  switch (arm) {
    case 'unpaced':
      break;
    case 'dashjs-rtp':
      // dash.js's CMCD as shipped: all keys, `rtp` from its own formula (rtpSafetyFactor 5).
      player.updateSettings({ streaming: { cmcd: { enabled: true, mode: 'query' } } });
      break;
    case 'flat-cap': {
      if (!(capKbps > 0)) throw new Error('flat-cap needs ?cap=<kbps>');
      const rtp = roundRtpKbps(capKbps);
      player.addRequestInterceptor(async (request) => {
        request.url = writeRtp({ url: request.url, headers: {} }, rtp, 'query').url;
        return request;
      });
      break;
    }
    case 'sammy':
      page.sammy(attach(player, { enabled: true }));
      break;
    case 'pace-only':
      // dash.js keeps its own ABR (DYNAMIC: BOLA, throughput, insufficient-buffer, abandon rules);
      // Sammy adds its pace, initial phase and first pick from the history.
      page.sammy(attach(player, { enabled: true, mode: paceOnly }));
      break;
    case 'sammy-paper':
      page.sammy(attach(player, { enabled: true, ...PRESETS.paper }));
      break;
    case 'sammy-neighbour-first':
      page.sammy(attach(player, { enabled: true, ...PRESETS.neighbourFirst }));
      break;
    case 'sammy-fast-switch':
      player.updateSettings({ streaming: { buffer: { fastSwitchEnabled: true } } });
      page.sammy(attach(player, { enabled: true }));
      break;
    default:
      throw unknownArm('dash.js', arm);
  }

  player.on(
    'fragmentLoadingCompleted' as never,
    ((e: FragmentEvent) => {
      const r = e.request;
      if (!r?.url || r.type !== 'MediaSegment') return;
      page.chunk({
        url: r.url,
        mediaType: r.mediaType ?? '',
        bitrateKbps: (r.bandwidth ?? r.representation?.bandwidth ?? 0) / 1000,
        segmentSeconds: r.duration ?? 0,
        bytes: r.bytesLoaded,
      });
    }) as never,
  );
  player.on(
    'qualityChangeRendered' as never,
    ((e: { mediaType?: string; newRepresentation?: { bandwidth?: number } }) => {
      if (e.mediaType === 'video' && e.newRepresentation?.bandwidth) page.quality(e.newRepresentation.bandwidth / 1000);
    }) as never,
  );
  player.on('error' as never, ((e: unknown) => page.error(e)) as never);

  return { start: () => player.initialize(page.video, page.params.mpdUrl, true) };
};

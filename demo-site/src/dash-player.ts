import { CONGESTION_CONTROL_HEADER, type CongestionControl } from 'sammy-pacing-protocol';
import { MediaPlayer, type LogLevel, type MediaPlayerClass } from 'dashjs';

/** dashjs.LogLevel.LOG_LEVEL_WARNING: an ambient const enum cannot be read under isolatedModules. */
const LOG_LEVEL_WARNING = 3 as LogLevel;

/**
 * A dash.js 5 player for the demo. Sammy is attached by the caller; this only sets what the page
 * itself needs: quiet logs (warnings and errors only, so the console stays readable) and the
 * congestion-control request header, read per request so a change applies to the next one.
 */
export function createDashPlayer(congestionControl: () => CongestionControl | undefined): MediaPlayerClass {
  const player = MediaPlayer().create();
  player.updateSettings({ debug: { logLevel: LOG_LEVEL_WARNING } });
  player.addRequestInterceptor(async (request) => {
    const cc = congestionControl();
    if (cc !== undefined) request.headers = { ...request.headers, [CONGESTION_CONTROL_HEADER]: cc };
    return request;
  });
  return player;
}

/** dash.js 5 with sammy-pacing-dashjs, playing the DASH manifest. */
import { MediaPlayer, type LogLevel } from 'dashjs';
import { CONGESTION_CONTROL_HEADER } from 'sammy-pacing-protocol';
import { attach } from 'sammy-pacing-dashjs';
import type { CreatePlayer } from './player.js';

/** dashjs.LogLevel.LOG_LEVEL_WARNING: an ambient const enum cannot be read under isolatedModules. */
const LOG_LEVEL_WARNING = 3 as LogLevel;

export const createPlayer: CreatePlayer = async ({ video, sammy: start, congestionControl, onError }) => {
  const player = MediaPlayer().create();
  // Warnings and errors only, so the console stays readable.
  player.updateSettings({ debug: { logLevel: LOG_LEVEL_WARNING } });
  player.addRequestInterceptor(async (request) => {
    const cc = congestionControl();
    if (cc !== undefined) request.headers = { ...request.headers, [CONGESTION_CONTROL_HEADER]: cc };
    return request;
  });
  const sammy = attach(player, { enabled: start.enabled, cmcdMode: start.cmcdMode });
  player.on('error', (e) => {
    const detail = (e as { error?: { message?: string; code?: number } }).error;
    onError(`dash.js error${detail?.code !== undefined ? ` ${detail.code}` : ''}: ${detail?.message ?? 'see the network panel'}`);
  });
  player.on('playbackEnded', () => {
    player.seek(0);
    player.play();
  });
  let initialised = false;
  return {
    name: 'dashjs',
    format: 'dash',
    raw: player,
    sammy,
    load(url) {
      if (initialised) {
        player.attachSource(url);
        return;
      }
      player.initialize(video, url, true);
      initialised = true;
    },
    bufferLevelSeconds() {
      if (!initialised || !player.isReady()) return undefined;
      try {
        const level = player.getBufferLength('video');
        return Number.isFinite(level) ? level : undefined;
      } catch {
        return undefined; // No video stream yet.
      }
    },
  };
};

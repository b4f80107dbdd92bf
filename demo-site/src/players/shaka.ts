/** Shaka Player 5 with sammy-pacing-shaka, playing the DASH manifest. */
import shaka from 'shaka-player';
import { CONGESTION_CONTROL_HEADER } from 'sammy-pacing-protocol';
import { attach } from 'sammy-pacing-shaka';
import { bufferAhead } from './buffer.js';
import type { CreatePlayer } from './player.js';

/** shaka.util.Error.Code.LOAD_INTERRUPTED: a load replaced by the next one (a new origin), no error. */
const LOAD_INTERRUPTED = 7000;

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? `Shaka error ${code} (shaka.util.Error.Code)` : `Shaka error: ${String(error)}`;
}

export const createPlayer: CreatePlayer = async ({ video, sammy: start, congestionControl, onError, onBuffering }) => {
  shaka.polyfill.installAll();
  const player = new shaka.Player();
  await player.attach(video);
  player.getNetworkingEngine()!.registerRequestFilter((_type, request) => {
    const cc = congestionControl();
    if (cc !== undefined) request.headers[CONGESTION_CONTROL_HEADER] = cc;
  });
  // Before load(): Shaka makes its AbrManager, and copies request filters, when a load starts.
  const sammy = attach(player, { enabled: start.enabled, cmcdMode: start.cmcdMode });
  player.addEventListener('error', (event) => onError(describe((event as Event & { detail?: unknown }).detail)));
  player.addEventListener('buffering', (event) => onBuffering((event as Event & { buffering?: boolean }).buffering === true));
  video.addEventListener('ended', () => {
    video.currentTime = 0;
    void video.play().catch(() => undefined);
  });
  return {
    name: 'shaka',
    format: 'dash',
    raw: player,
    sammy,
    load(url) {
      player
        .load(url)
        .then(() => video.play())
        .catch((error: unknown) => {
          if ((error as { code?: unknown } | null)?.code !== LOAD_INTERRUPTED) onError(describe(error));
        });
    },
    bufferLevelSeconds() {
      if (player.getLoadMode() !== shaka.Player.LoadMode.MEDIA_SOURCE) return undefined;
      return bufferAhead(player.getBufferedInfo().video, video.currentTime);
    },
  };
};

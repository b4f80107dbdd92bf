import type { SeriesName } from './graph-data.js';
import type { DemoSammy, PlayerName } from './players/player.js';
import type { SessionSummary } from './session.js';
import type { DemoState } from './url-state.js';

/**
 * The origin's live delivery records (the `achievedRate` series): followed, or not available
 * (an origin other than the page's, e.g. a Fastly service, or the stream failed).
 */
export type RecordsFeed = 'following' | 'unavailable';

/**
 * Read-only handle for end-to-end tests (`window.sammyDemo`); documented in README.md.
 * Functions return fresh copies, so a test cannot change the page through them.
 */
export interface SammyDemoHook {
  readonly playerName: PlayerName;
  /** The player library's own object: dash.js MediaPlayer, shaka.Player or Hls, by `playerName`. */
  readonly player: unknown;
  /** The controller the player's Sammy adapter returned from `attach`. */
  readonly sammy: DemoSammy;
  /** Calls `listener` with each player error the page shows from now on; returns the unsubscribe. */
  onPlayerError(listener: (message: string) => void): () => void;
  /** Point count per graph series of the current session. */
  series(): Record<SeriesName, number>;
  /** The summary panel's numbers, including per-run stats and the paced/unpaced comparison. */
  summary(): SessionSummary;
  /** The settings in effect (what the URL says). */
  state(): DemoState;
  deliveryRecords(): RecordsFeed;
}

declare global {
  interface Window {
    readonly sammyDemo?: SammyDemoHook;
  }
}

/**
 * Fired on `window` once the hook is installed. The hook needs the chosen player, loaded by a
 * dynamic import, so it may come after DOMContentLoaded; it always comes before the first request.
 */
export const DEMO_HOOK_READY_EVENT = 'sammy-demo-ready';

export function installDemoHook(hook: SammyDemoHook): void {
  Object.defineProperty(window, 'sammyDemo', { value: Object.freeze(hook), writable: false, configurable: false, enumerable: true });
  window.dispatchEvent(new Event(DEMO_HOOK_READY_EVENT));
}

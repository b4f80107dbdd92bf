import type { SammyController } from 'sammy-pacing-dashjs';
import type { MediaPlayerClass } from 'dashjs';
import type { SeriesName } from './graph-data.js';
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
  readonly player: MediaPlayerClass;
  readonly sammy: SammyController;
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

export function installDemoHook(hook: SammyDemoHook): void {
  Object.defineProperty(window, 'sammyDemo', { value: Object.freeze(hook), writable: false, configurable: false, enumerable: true });
}

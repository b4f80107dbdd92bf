import { isCongestionControl, type CmcdMode, type CongestionControl } from 'sammy-pacing-protocol';
import { isPlayerName, type PlayerName } from './players/player.js';

/**
 * Everything a viewer can change on the page. It lives in the URL so a view can be shared:
 * `?player=dashjs|shaka|hlsjs&origin=…&sammy=on|off&c0=…&c1=…&cc=…&cmcd=query|header`.
 */
export interface DemoState {
  /** The player the page plays with; changing it loads the page anew. */
  player: PlayerName;
  /** Base URL of the origin (or a full `.mpd` or `.m3u8` URL); '' = the origin serving this page. */
  origin: string;
  /** Sammy on (paced) or off (the player's own ABR, no rtp). */
  sammy: boolean;
  /** Pace multiplier at an empty buffer; undefined = the plugin's default. */
  c0: number | undefined;
  /** Pace multiplier at a full buffer; undefined = the plugin's default. */
  c1: number | undefined;
  /** Congestion control asked of the server; undefined = the server's default, no header sent. */
  cc: CongestionControl | undefined;
  cmcd: CmcdMode;
}

export const DEFAULT_STATE: Readonly<DemoState> = Object.freeze({
  player: 'dashjs',
  origin: '',
  sammy: true,
  c0: undefined,
  c1: undefined,
  cc: undefined,
  cmcd: 'query',
});

/** An http(s) URL without trailing slash, or undefined when the text is not one. */
export function normaliseOrigin(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.href.replace(/\/+$/, '');
}

function parseNumber(text: string | null): number | undefined {
  if (text === null || text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Reads the state from a query string. Unknown or malformed values fall back to the default
 * rather than failing: a hand-edited link should still open a working page. The range of
 * c0/c1 is the plugin's to judge (it throws SammyConfigError), not the URL's.
 */
export function parseDemoState(search: string | URLSearchParams): DemoState {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search;
  const sammy = params.get('sammy');
  const cc = params.get('cc');
  const cmcd = params.get('cmcd');
  const player = params.get('player');
  return {
    player: isPlayerName(player) ? player : DEFAULT_STATE.player,
    origin: normaliseOrigin(params.get('origin') ?? '') ?? DEFAULT_STATE.origin,
    sammy: sammy === 'off' ? false : sammy === 'on' ? true : DEFAULT_STATE.sammy,
    c0: parseNumber(params.get('c0')),
    c1: parseNumber(params.get('c1')),
    cc: isCongestionControl(cc) ? cc : undefined,
    cmcd: cmcd === 'header' || cmcd === 'query' ? cmcd : DEFAULT_STATE.cmcd,
  };
}

/** Writes the state as a query string (without `?`), in a fixed order, omitting defaults. */
export function serialiseDemoState(state: DemoState): string {
  const params = new URLSearchParams();
  if (state.player !== DEFAULT_STATE.player) params.set('player', state.player);
  if (state.origin !== DEFAULT_STATE.origin) params.set('origin', state.origin);
  params.set('sammy', state.sammy ? 'on' : 'off');
  if (state.c0 !== undefined) params.set('c0', String(state.c0));
  if (state.c1 !== undefined) params.set('c1', String(state.c1));
  if (state.cc !== undefined) params.set('cc', state.cc);
  if (state.cmcd !== DEFAULT_STATE.cmcd) params.set('cmcd', state.cmcd);
  return params.toString();
}

/** Seconds of unpaced playback a visitor arriving cold sees first, so the comparison is there without a click. */
export const DEFAULT_BASELINE_SECONDS = 20;
/** Longest baseline a link may ask for, s: the ladder is a minute long. */
export const MAX_BASELINE_SECONDS = 120;

/**
 * How long the page plays unpaced before it switches Sammy on, s (0: no baseline). `baseline=N` asks
 * for N; without it, a page opened with no `sammy` setting (a first visit) gets the default, and one
 * whose link says `sammy=on|off` gets none: that link asked for one mode, and tests rely on it.
 */
export function baselineSeconds(search: string | URLSearchParams): number {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search;
  const asked = parseNumber(params.get('baseline'));
  if (asked !== undefined) return Math.min(MAX_BASELINE_SECONDS, Math.max(0, asked));
  return params.has('sammy') ? 0 : DEFAULT_BASELINE_SECONDS;
}

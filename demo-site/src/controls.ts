import { CONGESTION_CONTROLS, isCongestionControl, type CmcdMode, type CongestionControl } from 'sammy-pacing-protocol';
import { byId } from './dom.js';
import { isPlayerName, PLAYER_LABELS, PLAYER_NAMES, type PlayerName } from './players/player.js';
import { normaliseOrigin, type DemoState } from './url-state.js';

/** What the page does when a control changes. A returned string is an error to show by the control. */
export interface ControlHandlers {
  player(name: PlayerName): void;
  sammy(on: boolean): void;
  multiplier(name: 'c0' | 'c1', value: number): string | undefined;
  congestionControl(cc: CongestionControl | undefined): void;
  cmcd(mode: CmcdMode): void;
  origin(origin: string): void;
}

const SERVER_DEFAULT = '';

/** Binds the settings forms: fills them from the state, and calls a handler on each change. */
export function bindControls(
  state: DemoState,
  current: { c0: number; c1: number },
  pageOrigin: string,
  handlers: ControlHandlers,
): {
  /** Shows a refused c0/c1 in its field, marked invalid, with the plugin's message. */
  showRefused(name: 'c0' | 'c1', value: number, message: string): void;
  /** Sets the Sammy switch as if the viewer had flipped it (the page's own baseline does). */
  setSammy(on: boolean): void;
} {
  const player = byId('player', HTMLSelectElement);
  const sammy = byId('sammy', HTMLInputElement);
  const cc = byId('cc', HTMLSelectElement);
  const cmcd = byId('cmcd', HTMLSelectElement);
  const origin = byId('origin', HTMLInputElement);
  const originError = byId('origin-error', HTMLParagraphElement);

  player.append(...PLAYER_NAMES.map((name) => new Option(PLAYER_LABELS[name], name)));
  player.value = state.player;
  player.addEventListener('change', () => {
    if (isPlayerName(player.value)) handlers.player(player.value);
  });

  sammy.checked = state.sammy;
  sammy.addEventListener('change', () => handlers.sammy(sammy.checked));

  cc.append(new Option('server default', SERVER_DEFAULT), ...CONGESTION_CONTROLS.map((name) => new Option(name, name)));
  cc.value = state.cc ?? SERVER_DEFAULT;
  cc.addEventListener('change', () => handlers.congestionControl(isCongestionControl(cc.value) ? cc.value : undefined));

  cmcd.value = state.cmcd;
  cmcd.addEventListener('change', () => handlers.cmcd(cmcd.value === 'header' ? 'header' : 'query'));

  function showError(name: 'c0' | 'c1', message: string | undefined): void {
    const input = byId(name, HTMLInputElement);
    byId(`${name}-error`, HTMLParagraphElement).textContent = message ?? '';
    input.setAttribute('aria-invalid', String(message !== undefined));
  }

  for (const name of ['c0', 'c1'] as const) {
    const input = byId(name, HTMLInputElement);
    input.value = String(current[name]);
    // `change`, not `input`: apply once the viewer commits (Enter, blur, spinner), not on every keystroke.
    input.addEventListener('change', () => {
      const value = input.value.trim() === '' ? Number.NaN : Number(input.value);
      showError(name, handlers.multiplier(name, value));
    });
  }

  origin.value = state.origin;
  // Empty means the server of this page, whatever scheme and port it was loaded from.
  origin.placeholder = pageOrigin;
  byId('origin-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    const normalised = normaliseOrigin(origin.value);
    originError.textContent = normalised === undefined ? 'Enter an http:// or https:// URL, or leave empty for this server.' : '';
    origin.setAttribute('aria-invalid', String(normalised === undefined));
    if (normalised === undefined) return;
    origin.value = normalised;
    handlers.origin(normalised);
  });

  return {
    showRefused(name, value, message) {
      byId(name, HTMLInputElement).value = String(value);
      showError(name, message);
    },
    setSammy(on) {
      if (sammy.checked === on) return;
      sammy.checked = on;
      handlers.sammy(on);
    },
  };
}

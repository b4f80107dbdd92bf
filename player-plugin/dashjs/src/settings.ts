/**
 * The dash.js settings Sammy changes while attached. `apply(on, startKbps)`, on: Sammy's rule alone (pace-only
 * mode never touches the rules), dash.js's first pick from `startKbps` (undefined: its own) and fast switching
 * off unless the app turned it on itself; off: dash.js's own; both: CMCD without dash.js's rtp. `restore()`: off,
 * with CMCD as attach found it.
 */
import type { MediaPlayerClass } from 'dashjs';
import { DASH_BUILT_IN_RULES } from './player.js';

export function dashSettings(player: MediaPlayerClass, paceOnly: boolean) {
  const { abr, cmcd, buffer } = player.getSettings().streaming ?? {};
  // (dash.js's default is null, typed as absent: given back as found.)
  const fastSwitchEnabled = buffer?.fastSwitchEnabled;
  const rules = Object.fromEntries(DASH_BUILT_IN_RULES.map((rule) => [rule, abr?.rules?.[rule]?.active ?? false]));
  const initialVideoBitrate = abr?.initialBitrate?.video ?? -1;
  const original = { ...cmcd, enabledKeys: [...(cmcd?.enabledKeys ?? [])] };
  const enabledKeys = original.enabledKeys.filter((key) => key !== 'rtp');
  // dash.js's own rtp spirals down with a throughput rule (README). dash.js writes the query form; the request
  // interceptor moves it into headers in header mode (dash.js 5.1 names that mode 'header', 5.2 'headers').
  const sammyCmcd = { enabled: true, mode: 'query' as const, ...(enabledKeys.length > 0 ? { enabledKeys } : {}) };
  const update = (on: boolean, startKbps: number | undefined, cmcd: object) => {
    const own = paceOnly ? {} : { rules: Object.fromEntries(DASH_BUILT_IN_RULES.map((rule) => [rule, { active: !on && rules[rule] }])) };
    // Sammy's rule with fast switching (dash.js's default) refetches the whole buffer on each step up: on links under
    // twice the rung refetched segments arrive after they began to play (two switches each), and the refetch spends the buffer
    // (issue 39's slow families). An app's own `true` stays.
    const mine = on && !paceOnly && fastSwitchEnabled !== true;
    player.updateSettings({
      streaming: {
        abr: { ...own, initialBitrate: { video: on && startKbps !== undefined ? startKbps : initialVideoBitrate } },
        buffer: { fastSwitchEnabled: mine ? false : fastSwitchEnabled },
        cmcd,
      },
    });
  };
  return {
    apply: (on: boolean, startKbps: number | undefined) => update(on, startKbps, sammyCmcd),
    restore: () => update(false, undefined, original),
  };
}

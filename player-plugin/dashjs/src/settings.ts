/**
 * The dash.js settings Sammy changes while attached, and how to give them back. Only the
 * initial-bitrate setting changes during a session: touching the rule settings makes dash.js
 * rebuild its rule list. Pace-only mode never touches the rules: dash.js's own stay as they are.
 */
import type { MediaPlayerClass } from 'dashjs';
import { DASH_BUILT_IN_RULES } from './player.js';

/** The settings as they were before attach. */
export interface SettingsSnapshot {
  rules: Record<string, boolean>;
  initialVideoBitrate: number;
  cmcd: NonNullable<NonNullable<ReturnType<MediaPlayerClass['getSettings']>['streaming']>['cmcd']> & { enabledKeys: string[] };
}

export function snapshotSettings(player: MediaPlayerClass): SettingsSnapshot {
  const s = player.getSettings().streaming ?? {};
  return {
    rules: Object.fromEntries(DASH_BUILT_IN_RULES.map((rule) => [rule, s.abr?.rules?.[rule]?.active ?? false])),
    initialVideoBitrate: s.abr?.initialBitrate?.video ?? -1,
    cmcd: { ...s.cmcd, enabledKeys: [...(s.cmcd?.enabledKeys ?? [])] },
  };
}

/** What Sammy asks of dash.js now. */
export interface SettingsState {
  enabled: boolean;
  /** Pace-only: dash.js's rules stay; Sammy only paces. */
  paceOnly: boolean;
  /** dash.js's first pick, kbps; undefined: dash.js's own (pace-only without a history). */
  startBitrateKbps: number | undefined;
}

/**
 * On: Sammy's rule alone (pace-only: dash.js's rules as they were), dash.js's first pick from
 * Sammy, CMCD without dash.js's rtp. Off: dash.js's own rules and first pick.
 */
export function applySettings(player: MediaPlayerClass, original: SettingsSnapshot, state: SettingsState): void {
  const { enabled, paceOnly, startBitrateKbps } = state;
  const enabledKeys = original.cmcd.enabledKeys.filter((k) => k !== 'rtp');
  player.updateSettings({
    streaming: {
      abr: {
        ...(paceOnly ? {} : { rules: Object.fromEntries(DASH_BUILT_IN_RULES.map((r) => [r, { active: enabled ? false : original.rules[r] }])) }),
        initialBitrate: { video: enabled && startBitrateKbps !== undefined ? startBitrateKbps : original.initialVideoBitrate },
      },
      // dash.js computes an `rtp` of its own (a 5× buffer-scaled guess that spirals down with a
      // throughput rule); drop the key so only Sammy's pace travels. dash.js writes the query
      // form; in header mode the request interceptor moves the payload into headers (dash.js 5
      // releases disagree on the name of their header mode: 'header' in 5.1, 'headers' in 5.2).
      cmcd: { enabled: true, mode: 'query', ...(enabledKeys.length > 0 ? { enabledKeys } : {}) },
    },
  });
}

export function setStartBitrate(player: MediaPlayerClass, kbps: number): void {
  player.updateSettings({ streaming: { abr: { initialBitrate: { video: kbps } } } });
}

export function restoreSettings(player: MediaPlayerClass, original: SettingsSnapshot, paceOnly: boolean): void {
  player.updateSettings({
    streaming: {
      abr: {
        ...(paceOnly ? {} : { rules: Object.fromEntries(DASH_BUILT_IN_RULES.map((r) => [r, { active: original.rules[r] }])) }),
        initialBitrate: { video: original.initialVideoBitrate },
      },
      cmcd: original.cmcd,
    },
  });
}

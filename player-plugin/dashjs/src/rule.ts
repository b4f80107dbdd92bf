/**
 * The dash.js quality-switch rule. dash.js builds a custom rule as `rule(context).create()` and
 * reads `{ representation, priority, reason, rule }` back from `getSwitchRequest`; a
 * `representation` of null means "no opinion". Shapes follow dash.js 5's SwitchRequest.
 */
import { isMediaKind, type MediaKind } from 'sammy-pacing-core';

export const SAMMY_RULE_NAME = 'SammyRule';

/** dash.js's SwitchRequest.PRIORITY.STRONG: wins over any rule the user kept active. */
const PRIORITY_STRONG = 1;

/** The part of a dash.js Representation the rule reads. */
export interface RepresentationLike {
  bitrateInKbit: number;
  id?: string;
}

/** The part of dash.js's RulesContext the rule reads. */
export interface RulesContextLike {
  getMediaType(): string;
  getMediaInfo(): unknown;
  getAbrController(): {
    getPossibleVoRepresentationsFilteredBySettings(mediaInfo: unknown, includeCompatibleMediaInfos?: boolean): RepresentationLike[];
    getOptimalRepresentationForBitrate(mediaInfo: unknown, bitrateInKbit: number, includeCompatibleMediaInfos?: boolean): RepresentationLike | null;
  };
}

export interface SwitchRequestLike {
  representation: RepresentationLike | null;
  priority: number;
  reason: unknown;
  rule: string;
}

/** Chooses a bitrate for a media type and ladder; undefined = leave it to other rules. */
export type BitrateChooser = (mediaType: MediaKind, ladderKbps: number[]) => { bitrateKbps: number; reason: string } | undefined;

/** A dash.js rule factory whose every instance defers to `choose` (dash.js may create several). */
export function createRuleFactory(choose: BitrateChooser) {
  function getSwitchRequest(ctx: RulesContextLike): SwitchRequestLike {
    const noChange: SwitchRequestLike = { representation: null, priority: PRIORITY_STRONG, reason: null, rule: SAMMY_RULE_NAME };
    const mediaType = ctx.getMediaType();
    if (!isMediaKind(mediaType)) return noChange;
    const mediaInfo = ctx.getMediaInfo();
    const abr = ctx.getAbrController();
    const ladder = abr.getPossibleVoRepresentationsFilteredBySettings(mediaInfo, true).map((r) => r.bitrateInKbit);
    if (ladder.length === 0) return noChange;
    const choice = choose(mediaType, ladder);
    if (!choice) return noChange;
    const representation = abr.getOptimalRepresentationForBitrate(mediaInfo, choice.bitrateKbps, true);
    return { representation, priority: PRIORITY_STRONG, reason: { message: choice.reason }, rule: SAMMY_RULE_NAME };
  }

  return function SammyRule(_context?: unknown) {
    return {
      create() {
        return { getSwitchRequest, getClassName: () => SAMMY_RULE_NAME, reset() {} };
      },
    };
  };
}

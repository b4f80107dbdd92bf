/**
 * The dash.js quality-switch rule. dash.js builds a custom rule as `rule(context).create()` and
 * reads `{ representation, priority, reason, rule }` back from `getSwitchRequest`; a
 * `representation` of null means "no opinion". Shapes follow dash.js 5's SwitchRequest.
 */
import { isMediaKind, type MediaKind, type SammySession } from 'sammy-pacing-core';
import type { PlayerLike } from './player.js';
import { bufferLevelSeconds, stepUpRefetchSeconds } from './stream.js';

export const SAMMY_RULE_NAME = 'SammyRule';

/** dash.js's SwitchRequest.PRIORITY.STRONG: wins over any rule the user kept active. */
const PRIORITY_STRONG = 1;

/** The part of a dash.js Representation the rule reads. */
interface RepresentationLike {
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

/** Sammy's bitrate for a media type and ladder, with dash.js's buffer; undefined = leave it to other rules. */
function chooser(player: PlayerLike, session: SammySession) {
  return (mediaType: MediaKind, ladderKbps: number[]) => {
    const choice = session.chooseBitrate({ mediaType, ladderKbps, bufferLevelSeconds: bufferLevelSeconds(player, mediaType), stepUpRefetchSeconds: stepUpRefetchSeconds(player) });
    if (!choice) return undefined;
    const x = choice.estimateKbps === undefined ? 'none' : `${Math.round(choice.estimateKbps)} kbps`;
    return { bitrateKbps: choice.bitrateKbps, reason: `[Sammy] ${choice.phase} phase, estimate ${x}` };
  };
}

/** A dash.js rule factory whose every instance defers to the session (dash.js may create several). */
export function createRuleFactory(player: PlayerLike, session: SammySession) {
  const choose = chooser(player, session);
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

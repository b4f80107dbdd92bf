/**
 * Sammy's dash.js quality-switch rule: dash.js builds a custom rule as `rule(context).create()` and
 * reads a SwitchRequest back from `getSwitchRequest`, whose null `representation` means "no opinion".
 */
import type { MediaPlayerClass, Representation, RulesContext } from 'dashjs';
import { isMediaKind, type SammySession } from 'sammy-pacing-core';
import { bufferLevelSeconds } from './stream.js';

export const SAMMY_RULE_NAME = 'SammyRule';

/** dash.js's SwitchRequest.PRIORITY.STRONG: wins over any rule the user kept active. */
const PRIORITY_STRONG = 1;

/** A rule factory whose every instance defers to the session (dash.js may create several). */
export function createRuleFactory(player: MediaPlayerClass, session: SammySession) {
  // Not dash.js's declared SwitchRequest: dash.js reads a null representation (no opinion) and an object reason.
  function getSwitchRequest(ctx: RulesContext): {
    representation: Representation | null;
    priority: number;
    reason: { message: string } | null;
    rule: string;
  } {
    const noChange = { representation: null, priority: PRIORITY_STRONG, reason: null, rule: SAMMY_RULE_NAME };
    const mediaType = ctx.getMediaType();
    if (!isMediaKind(mediaType)) return noChange;
    const [mediaInfo, abr] = [ctx.getMediaInfo(), ctx.getAbrController()];
    const ladderKbps = (abr.getPossibleVoRepresentationsFilteredBySettings(mediaInfo, true) ?? []).map((r) => r.bitrateInKbit);
    // With fast switching (its default, null, is on outside low latency) dash.js refetches the buffer from 1.5 s on a step up (README).
    const stepUpRefetchSeconds = player.getSettings().streaming?.buffer?.fastSwitchEnabled === false ? undefined : 1.5;
    const choice =
      ladderKbps.length > 0
        ? session.chooseBitrate({ mediaType, ladderKbps, bufferLevelSeconds: bufferLevelSeconds(player, mediaType), stepUpRefetchSeconds })
        : undefined;
    if (!choice) return noChange;
    const estimate = choice.estimateKbps === undefined ? 'none' : `${Math.round(choice.estimateKbps)} kbps`;
    return {
      ...noChange,
      representation: abr.getOptimalRepresentationForBitrate(mediaInfo, choice.bitrateKbps, true),
      reason: { message: `[Sammy] ${choice.phase} phase, estimate ${estimate}` },
    };
  }
  return (_context?: unknown) => ({ create: () => ({ getSwitchRequest, getClassName: () => SAMMY_RULE_NAME, reset() {} }) });
}

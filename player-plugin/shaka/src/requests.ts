// Shaka's networking-engine filters around the kit's request pipeline. Shaka writes its CMCD before any request
// filter runs, so ours sets that payload's `rtp` to the pace or removes it: Shaka's own never leaves (README: CMCD).
import { isMediaKind, type AdapterKit } from 'sammy-pacing-core';
import { writeRtp } from 'sammy-pacing-protocol';
import { buffersAhead, type Appending, type Ladder } from './ladder.js';
import type { PlayerLike, Request, RequestContext, Response } from './shaka.js';

const SEGMENT = 1; // shaka.net.NetworkingEngine's RequestType.SEGMENT and AdvancedRequestType.MEDIA_SEGMENT

/** `onSwitchPoint`: Shaka holds a segment of the main type (video; audio without video) and allows a switch after it (`appending`). */
export function createFilters(
  player: PlayerLike,
  kit: AdapterKit,
  ladder: Ladder,
  onSwitchPoint: (appending: Appending | undefined) => void,
) {
  const request = (type: number, req: Request, context?: RequestContext): void => {
    const stream = context?.stream,
      kind = stream?.type;
    const carrier = { url: req.uris[0] ?? '', headers: req.headers };
    const media = () =>
      type === SEGMENT && context?.type === SEGMENT && stream && isMediaKind(kind)
        ? { mediaType: kind, bitrateKbps: ladder.of(stream), ladderTopKbps: ladder.top, bufferLevelSeconds: buffersAhead(player) }
        : undefined;
    const decision = kit.send(carrier, media, req);
    // Every alternative URI carries the same payload (Shaka's CMCD writes them all).
    req.uris = req.uris.map((url, i) => (i ? writeRtp({ url, headers: {} }, decision?.paceRateKbps, kit.cmcdMode()).url : carrier.url));
    req.headers = carrier.headers;
  };

  const response = (_type: number, res: Response, context?: RequestContext): void => {
    if (res.fromCache) return kit.failed(res.originalRequest);
    // timeMs: Shaka's own timing, from sending to the last byte.
    const kind = kit.ended(res.originalRequest, res.data?.byteLength ?? 0, res.timeMs)?.mediaType;
    const segment = context?.segment;
    // Not within a partial segment of a fast-switching stream (Shaka's NetworkingEngine.allowSwitch_).
    if (!kind || (kind === 'audio' && ladder.top.video > 0) || (context?.stream?.fastSwitching && segment?.isPartial())) return;
    // In the next task Shaka holds the segment: a switch no longer makes it fetch the segment again (README: switches).
    setTimeout(() => onSwitchPoint(segment ? { kind, startTime: segment.getStartTime(), endTime: segment.getEndTime() } : undefined));
  };
  return { request, response };
}

/**
 * Shaka's networking-engine filters around the kit's request pipeline. Shaka applies its own CMCD
 * in the networking engine's `onRequest` hook, which runs before every registered request filter
 * (lib/net/networking_engine.js: `filterRequest_`, lines 400-425; lib/player.js: `onRequest_` →
 * `cmcdManager_.applyRequestData`), so the request filter finds Shaka's payload in place — the
 * `CMCD` query parameter, or `CMCD-*` headers with `useHeaders` — and sets its `rtp` to this
 * request's pace, or removes it: Shaka's own (rtpSafetyFactor × segment size ÷ buffer) never
 * leaves. Only media segments are paced. The response filter reports each finished media download.
 */
import { isMediaKind, type AdapterKit, type SentRequest } from 'sammy-pacing-core';
import { writeRtp } from 'sammy-pacing-protocol';
import { trackStates, type Appending, type Ladder } from './ladder.js';
import { MEDIA_SEGMENT, REQUEST_TYPE_SEGMENT, type PlayerLike, type Request, type RequestContext, type Response } from './shaka.js';

/**
 * `onSwitchPoint`: a segment of the main media type (video; audio without video) is complete and
 * Shaka allows a switch after it. `appending`: that segment, which Shaka appends next.
 */
export function createFilters(player: PlayerLike, kit: AdapterKit, ladder: Ladder, onSwitchPoint: (appending: Appending | undefined) => void) {
  const inFlight = new WeakMap<Request, SentRequest>();

  const request = (type: number, req: Request, context?: RequestContext): void => {
    const stream = context?.stream;
    const kind = stream?.type;
    const carrier = { url: req.uris[0] ?? '', headers: req.headers };
    const sent = kit.send(carrier, () =>
      type === REQUEST_TYPE_SEGMENT && context?.type === MEDIA_SEGMENT && stream && isMediaKind(kind)
        ? { mediaType: kind, bitrateKbps: ladder.of(stream), tracks: trackStates(player, ladder, kind) }
        : undefined,
    );
    // Every alternative URI carries the same payload (Shaka's CMCD writes them all).
    req.uris = req.uris.map((url, i) => (i === 0 ? carrier.url : writeRtp({ url, headers: {} }, sent.decision?.paceRateKbps, kit.cmcdMode()).url));
    req.headers = carrier.headers;
    if (sent.decision) inFlight.set(req, sent);
  };

  const response = (_type: number, res: Response, context?: RequestContext): void => {
    const sent = inFlight.get(res.originalRequest);
    if (!sent) return;
    inFlight.delete(res.originalRequest);
    if (res.fromCache) return sent.aborted();
    // timeMs: Shaka's own timing of the request, from sending to the last byte (networking_engine.js).
    const sample = sent.done(res.data?.byteLength ?? 0, res.timeMs ?? 0);
    if (!sample) return;
    // Sammy switches as a segment of the main type completes, never while one is in flight, and
    // only once Shaka holds the segment: a switch before its fetch operation ends (as in this
    // filter) makes Shaka abort it and fetch the same segment again at the new rung (lab, 1.5×
    // link: one segment thrown away every ~5 s). The next task comes after that, before the
    // append ends and the next request leaves. The segment counts as buffered meanwhile: a
    // choice from the buffer without it flips down and up from one segment to the next.
    const kind = sample.mediaType;
    const segment = context?.segment;
    // Shaka's NetworkingEngine.allowSwitch_: no switch within a partial segment of a fast-switching stream.
    if ((kind === 'video' || !(ladder.top.video > 0)) && !(context?.stream?.fastSwitching && segment?.isPartial())) {
      const appending = segment ? { kind, startTime: segment.getStartTime(), endTime: segment.getEndTime() } : undefined;
      setTimeout(() => onSwitchPoint(appending));
    }
  };

  return { request, response };
}

/**
 * Shaka's networking-engine filters. Shaka applies its own CMCD in the networking engine's
 * `onRequest` hook, which runs before every registered request filter (lib/net/networking_engine.js:
 * `filterRequest_`, lines 400-425; lib/player.js: `onRequest_` → `cmcdManager_.applyRequestData`),
 * so the request filter finds Shaka's payload in place — the `CMCD` query parameter, or `CMCD-*`
 * headers with `useHeaders` — and sets its `rtp` to this request's pace, or removes it: Shaka's
 * own (rtpSafetyFactor × segment size ÷ buffer) never leaves. Only media segments are paced.
 * The response filter hands each finished media download back to the session as a sample.
 */
import { isMediaKind, type SammyDecision, type SammySession } from 'sammy-pacing-core';
import { withoutCmcd, writeRtp, type CmcdMode } from 'sammy-pacing-protocol';
import { trackStates, type Appending, type Ladder } from './ladder.js';
import { MEDIA_SEGMENT, REQUEST_TYPE_SEGMENT, type PlayerLike, type Request, type RequestContext, type Response } from './shaka.js';

export interface FilterContext {
  player: PlayerLike;
  session: SammySession;
  ladder: Ladder;
  cmcdMode(): CmcdMode;
  maxBufferSeconds(): number;
  /**
   * A switch point: a segment of the main media type (video; audio without video) is complete
   * and Shaka allows a switch after it. `appending`: that segment, which Shaka appends next.
   */
  onSwitchPoint(appending: Appending | undefined): void;
}

export function createFilters(ctx: FilterContext) {
  const { player, session, ladder } = ctx;
  const inFlight = new WeakMap<Request, SammyDecision>();

  const request = (type: number, req: Request, context?: RequestContext): void => {
    try {
      const stream = context?.stream;
      const kind = stream?.type;
      const decision =
        type === REQUEST_TYPE_SEGMENT && context?.type === MEDIA_SEGMENT && stream && isMediaKind(kind)
          ? session.decide({
              mediaType: kind,
              bitrateKbps: ladder.of(stream),
              url: withoutCmcd(req.uris[0] ?? ''),
              tracks: trackStates(player, ladder, kind),
              maxBufferSeconds: ctx.maxBufferSeconds(),
            })
          : undefined;
      const rtp = decision?.paceRateKbps;
      const mode = ctx.cmcdMode();
      // Every alternative URI carries the same payload (Shaka's CMCD writes them all).
      req.uris = req.uris.map((url, i) => {
        const written = writeRtp({ url, headers: i === 0 ? req.headers : {} }, rtp, mode);
        if (i === 0) req.headers = written.headers;
        return written.url;
      });
      if (decision) inFlight.set(req, decision);
    } catch (error) {
      // Never hold a segment back: an unpaced request beats a failed one.
      console.error('Sammy:', error);
    }
  };

  const response = (_type: number, res: Response, context?: RequestContext): void => {
    const decision = inFlight.get(res.originalRequest);
    if (!decision) return;
    inFlight.delete(res.originalRequest);
    if (res.fromCache) return;
    // timeMs: Shaka's own timing of the request, from sending to the last byte (networking_engine.js).
    if (!session.addSample(decision, { bytes: res.data?.byteLength ?? 0, durationMs: res.timeMs ?? 0 })) return;
    // Sammy switches as a segment of the main type completes, never while one is in flight, and
    // only once Shaka holds the segment: a switch before its fetch operation ends (as in this
    // filter) makes Shaka abort it and fetch the same segment again at the new rung (lab, 1.5×
    // link: one segment thrown away every ~5 s). The next task comes after that, before the
    // append ends and the next request leaves. The segment counts as buffered meanwhile: a
    // choice from the buffer without it flips down and up from one segment to the next.
    const kind = decision.mediaType;
    const segment = context?.segment;
    // Shaka's NetworkingEngine.allowSwitch_: no switch within a partial segment of a fast-switching stream.
    if ((kind === 'video' || !(ladder.top.video > 0)) && !(context?.stream?.fastSwitching && segment?.isPartial())) {
      const appending = segment ? { kind, startTime: segment.getStartTime(), endTime: segment.getEndTime() } : undefined;
      setTimeout(() => ctx.onSwitchPoint(appending));
    }
  };

  return { request, response };
}

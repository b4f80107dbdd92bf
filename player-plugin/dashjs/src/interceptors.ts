/**
 * dash.js's request and response interceptors: each media request gets the session's decision
 * and carries its pace as CMCD `rtp` (manifest, init and other requests carry none); each
 * finished download goes back to the session as a sample. Both also keep the in-flight list
 * that makes dash.js's aborts work with CMCD on (./loader-aborts.ts).
 */
import { isMediaKind, type SammyDecision, type SammySession } from 'sammy-pacing-core';
import { withoutCmcd, writeRtp, type CmcdMode } from 'sammy-pacing-protocol';
import { ended, loading } from './loader-aborts.js';
import { MEDIA_SEGMENT_TYPE, type CommonMediaRequestLike, type CommonMediaResponseLike, type PlayerLike } from './player.js';
import { playerMaxBufferSeconds, trackStates } from './stream.js';

export interface InterceptorContext {
  player: PlayerLike;
  session: SammySession;
  cmcdMode(): CmcdMode;
  /** Buffer level counted as full, seconds; undefined: dash.js's own target. */
  maxBufferSeconds: number | undefined;
  /** After each sample: the history may have moved dash.js's start bitrate. */
  onSample(): void;
}

export function createInterceptors(ctx: InterceptorContext) {
  const { player, session } = ctx;
  // The decision of each media request in flight, by dash.js's own request object.
  const inFlight = new WeakMap<object, { decision: SammyDecision; sentAt: number }>();

  const request = async (req: CommonMediaRequestLike): Promise<CommonMediaRequestLike> => {
    try {
      const fragment = req.customData?.request;
      const mediaType = fragment?.mediaType;
      const isMedia = fragment?.type === MEDIA_SEGMENT_TYPE && isMediaKind(mediaType);
      const decision = isMedia
        ? session.decide({
            mediaType,
            bitrateKbps: fragment.representation?.bitrateInKbit ?? (fragment.bandwidth ?? 0) / 1000,
            url: withoutCmcd(req.url),
            tracks: trackStates(player, mediaType),
            maxBufferSeconds: ctx.maxBufferSeconds ?? playerMaxBufferSeconds(player),
          })
        : undefined;
      const written = writeRtp({ url: req.url, headers: req.headers ?? {} }, decision?.paceRateKbps, ctx.cmcdMode());
      req.url = written.url;
      req.headers = written.headers;
      if (decision && fragment) inFlight.set(fragment, { decision, sentAt: Date.now() });
    } catch (error) {
      // Never hold a segment back: an unpaced request beats a failed one.
      console.error('Sammy: request interceptor failed', error);
    }
    loading(req);
    return req;
  };

  const response = async (res: CommonMediaResponseLike): Promise<CommonMediaResponseLike> => {
    ended(res);
    const fragment = res.request?.customData?.request;
    const sent = fragment ? inFlight.get(fragment) : undefined;
    if (!fragment || !sent) return res;
    inFlight.delete(fragment);
    const status = res.status ?? 0;
    if (status < 200 || status > 299) return res;
    const bytes = res.data instanceof ArrayBuffer ? res.data.byteLength : (res.resourceTiming?.encodedBodySize ?? 0);
    // Duration from dash.js's own timing of the load (both ends on one clock, whichever it uses).
    const t = res.resourceTiming;
    const durationMs = t?.responseEnd !== undefined && t.startTime !== undefined ? t.responseEnd - t.startTime : Date.now() - sent.sentAt;
    if (session.addSample(sent.decision, { bytes, durationMs })) ctx.onSample();
    return res;
  };

  return { request, response };
}

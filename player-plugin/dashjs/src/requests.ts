/**
 * dash.js's request and response interceptors around the kit's request pipeline: the carrier is
 * dash.js's CommonMediaRequest, a media segment is a MediaSegment request of video or audio, and
 * the download's time is dash.js's own Resource Timing of it. Both also keep the in-flight list
 * that makes dash.js's aborts work with CMCD on (./loader-aborts.ts).
 */
import { isMediaKind, type AdapterKit, type SentRequest } from 'sammy-pacing-core';
import { ended, loading } from './loader-aborts.js';
import { MEDIA_SEGMENT_TYPE, type CommonMediaRequestLike, type CommonMediaResponseLike, type PlayerLike } from './player.js';
import { trackStates } from './stream.js';

export function createInterceptors(player: PlayerLike, kit: AdapterKit) {
  // Each media request in flight, by dash.js's own request object.
  const inFlight = new WeakMap<object, { sent: SentRequest; sentAt: number }>();

  const request = async (req: CommonMediaRequestLike): Promise<CommonMediaRequestLike> => {
    const fragment = req.customData?.request;
    const sent = kit.send(req, () => {
      const mediaType = fragment?.mediaType;
      if (fragment?.type !== MEDIA_SEGMENT_TYPE || !isMediaKind(mediaType)) return undefined;
      return { mediaType, bitrateKbps: fragment.representation?.bitrateInKbit ?? (fragment.bandwidth ?? 0) / 1000, tracks: trackStates(player, mediaType) };
    });
    if (sent.decision && fragment) inFlight.set(fragment, { sent, sentAt: Date.now() });
    loading(req);
    return req;
  };

  const response = async (res: CommonMediaResponseLike): Promise<CommonMediaResponseLike> => {
    ended(res);
    const fragment = res.request?.customData?.request;
    const entry = fragment && inFlight.get(fragment);
    if (!entry) return res;
    inFlight.delete(fragment);
    const status = res.status ?? 0;
    if (status < 200 || status > 299) {
      entry.sent.aborted();
      return res;
    }
    const bytes = res.data instanceof ArrayBuffer ? res.data.byteLength : (res.resourceTiming?.encodedBodySize ?? 0);
    // Duration from dash.js's own timing of the load (both ends on one clock, whichever it uses).
    const t = res.resourceTiming;
    entry.sent.done(bytes, t?.responseEnd !== undefined && t.startTime !== undefined ? t.responseEnd - t.startTime : Date.now() - entry.sentAt);
    return res;
  };

  return { request, response };
}

/**
 * dash.js's request and response interceptors around the kit's request pipeline: the carrier is
 * dash.js's CommonMediaRequest, a media segment is a MediaSegment request of video or audio, kept
 * under dash.js's own request object, and the download's time is dash.js's own Resource Timing of
 * it. Both also keep the in-flight list that makes dash.js's aborts work with CMCD on (./loader-aborts.ts).
 */
import { isMediaKind, type AdapterKit } from 'sammy-pacing-core';
import { ended, loading } from './loader-aborts.js';
import { MEDIA_SEGMENT_TYPE, type CommonMediaRequestLike, type CommonMediaResponseLike, type PlayerLike } from './player.js';
import { streamOf } from './stream.js';

export function createInterceptors(player: PlayerLike, kit: AdapterKit) {
  const request = async (req: CommonMediaRequestLike): Promise<CommonMediaRequestLike> => {
    const fragment = req.customData?.request;
    const mediaType = fragment?.mediaType;
    const media = () => (fragment?.type === MEDIA_SEGMENT_TYPE && isMediaKind(mediaType) ? { mediaType, bitrateKbps: fragment.representation?.bitrateInKbit ?? (fragment.bandwidth ?? 0) / 1000, ...streamOf(player) } : undefined);
    kit.send(req, media, fragment ?? req);
    loading(req);
    return req;
  };

  const response = async (res: CommonMediaResponseLike): Promise<CommonMediaResponseLike> => {
    ended(res);
    const fragment = res.request?.customData?.request;
    if (!fragment) return res;
    const status = res.status ?? 0;
    const t = res.resourceTiming;
    if (status < 200 || status > 299) kit.failed(fragment);
    // Both ends of dash.js's own timing are on one clock, whichever it uses; without them the kit times from the request.
    else kit.ended(fragment, res.data instanceof ArrayBuffer ? res.data.byteLength : (t?.encodedBodySize ?? 0), t?.responseEnd !== undefined && t.startTime !== undefined ? t.responseEnd - t.startTime : undefined);
    return res;
  };

  return { request, response };
}

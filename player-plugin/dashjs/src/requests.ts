/**
 * dash.js's interceptors around the kit's pipeline: a media segment is a MediaSegment request of
 * video or audio, kept under dash.js's own request object, its download timed by dash.js itself.
 */
import type { MediaPlayerClass } from 'dashjs';
import { isMediaKind, type AdapterKit } from 'sammy-pacing-core';
import { inFlight } from './loader-aborts.js';
import type { DashInterceptors, DashRequest, DashResponse } from './player.js';
import { streamOf } from './stream.js';

export function createInterceptors(player: MediaPlayerClass, kit: AdapterKit): DashInterceptors {
  const request = async (req: DashRequest) => {
    const fragment = req.customData?.request;
    const mediaType = fragment?.mediaType;
    const media = () =>
      fragment?.type === 'MediaSegment' && isMediaKind(mediaType)
        ? { mediaType, bitrateKbps: fragment.representation?.bitrateInKbit ?? (fragment.bandwidth ?? 0) / 1000, ...streamOf(player) }
        : undefined;
    kit.send(req, media, fragment ?? req);
    inFlight(req.customData, true);
    return req;
  };
  const response = async (res: DashResponse) => {
    inFlight(res.request?.customData, false);
    const fragment = res.request?.customData?.request;
    const [status, t] = [res.status ?? 0, res.resourceTiming];
    if (!fragment) return res;
    if (status < 200 || status > 299) kit.failed(fragment);
    // Both ends of dash.js's own timing are on one clock, whichever it uses; without them the kit times from the request.
    else
      kit.ended(
        fragment,
        res.data instanceof ArrayBuffer ? res.data.byteLength : (t?.encodedBodySize ?? 0),
        t?.responseEnd !== undefined && t.startTime !== undefined ? t.responseEnd - t.startTime : undefined,
      );
    return res;
  };
  return { request, response } as unknown as DashInterceptors;
}

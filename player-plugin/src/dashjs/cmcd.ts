/**
 * Puts this request's pace rate into the CMCD payload dash.js already wrote, as `rtp`, so that
 * one `CMCD` query parameter (or one set of CMCD-* headers) carries every key. Encoding and
 * decoding go through @svta/cml-cmcd, the library dash.js itself uses.
 */
import { CMCD_HEADER_FIELDS, CMCD_PARAM, decodeCmcd, fromCmcdHeaders, toCmcdHeaders, toCmcdQuery, type CmcdData } from '@svta/cml-cmcd';

type Cmcd = Parameters<typeof toCmcdQuery>[0];

/** dash.js 5 writes CMCD v1 unless told otherwise; keep whichever version the payload has. */
function versionOf(data: CmcdData): 1 | 2 {
  return (data as { v?: number }).v === 2 ? 2 : 1;
}

function applyRtp(data: CmcdData, rtpKbps: number | undefined): CmcdData {
  const next = { ...data } as Record<string, unknown>;
  if (rtpKbps === undefined) delete next.rtp;
  else next.rtp = rtpKbps;
  return next as CmcdData;
}

function splitUrl(url: string): { base: string; query: string; hash: string } {
  const hashAt = url.indexOf('#');
  const hash = hashAt >= 0 ? url.slice(hashAt) : '';
  const rest = hashAt >= 0 ? url.slice(0, hashAt) : url;
  const queryAt = rest.indexOf('?');
  return queryAt >= 0 ? { base: rest.slice(0, queryAt), query: rest.slice(queryAt + 1), hash } : { base: rest, query: '', hash };
}

function isCmcdParam(part: string): boolean {
  return part === CMCD_PARAM || part.startsWith(`${CMCD_PARAM}=`);
}

/** The URL with `rtp` set (or removed, for undefined) in its CMCD query parameter; other parameters untouched. */
export function setRtpInUrl(url: string, rtpKbps: number | undefined): string {
  const { base, query, hash } = splitUrl(url);
  const parts = query === '' ? [] : query.split('&');
  const at = parts.findIndex(isCmcdParam);
  const existing = at >= 0 ? parts[at]!.slice(CMCD_PARAM.length + 1) : undefined;
  let data: CmcdData = {};
  if (existing) {
    try {
      data = decodeCmcd(decodeURIComponent(existing));
    } catch {
      data = {};
    }
  }
  if (rtpKbps === undefined && (data as { rtp?: number }).rtp === undefined) return url;
  const next = applyRtp(data, rtpKbps);
  const encoded = Object.keys(next).length > 0 ? toCmcdQuery(next as Cmcd, { version: versionOf(next) }) : undefined;
  if (at >= 0) {
    if (encoded) parts[at] = encoded;
    else parts.splice(at, 1);
  } else if (encoded) {
    parts.push(encoded);
  }
  return `${base}${parts.length > 0 ? `?${parts.join('&')}` : ''}${hash}`;
}

/** Headers with `rtp` set (or removed) in `CMCD-Status`, re-sharded by cml-cmcd; other headers untouched. */
export function setRtpInHeaders(headers: Record<string, string>, rtpKbps: number | undefined): Record<string, string> {
  const cmcdNames = new Set<string>(CMCD_HEADER_FIELDS.map((h) => h.toLowerCase()));
  const cmcdHeaders: Record<string, string> = {};
  const others: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (cmcdNames.has(name.toLowerCase())) cmcdHeaders[name] = value;
    else others[name] = value;
  }
  let data: CmcdData = {};
  try {
    data = fromCmcdHeaders(cmcdHeaders);
  } catch {
    data = {};
  }
  if (rtpKbps === undefined && (data as { rtp?: number }).rtp === undefined) return headers;
  const next = applyRtp(data, rtpKbps);
  const shards = toCmcdHeaders(next as Cmcd, { version: versionOf(next) });
  for (const [name, value] of Object.entries(shards)) if (value) others[name] = value;
  return others;
}

/** The URL without its CMCD parameter: what a decision reports and a server serves. */
export function urlWithoutCmcd(url: string): string {
  const { base, query, hash } = splitUrl(url);
  const parts = query === '' ? [] : query.split('&').filter((p) => !isCmcdParam(p));
  return `${base}${parts.length > 0 ? `?${parts.join('&')}` : ''}${hash}`;
}

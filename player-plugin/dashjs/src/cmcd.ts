/**
 * Puts this request's pace rate into the CMCD payload dash.js already wrote, as `rtp`, so that
 * one payload carries every key: one `CMCD` query parameter in query mode, one set of `CMCD-*`
 * headers in header mode. Encoding and decoding go through @svta/cml-cmcd, the library dash.js
 * itself uses.
 *
 * dash.js always writes the query form here (Sammy sets its mode to query) and Sammy moves the
 * payload into headers itself in header mode: dash.js 5 releases disagree on the name of their
 * header mode ('header' in its typings and 5.1, 'headers' in 5.2), and this way both work alike.
 */
import { CMCD_HEADER_FIELDS, CMCD_PARAM, decodeCmcd, fromCmcdHeaders, toCmcdHeaders, toCmcdQuery, type CmcdData } from '@svta/cml-cmcd';
import type { CmcdMode } from 'sammy-pacing-core';

type Cmcd = Parameters<typeof toCmcdQuery>[0];

/** What carries CMCD on a request. */
export interface CmcdCarrier {
  url: string;
  headers: Record<string, string>;
}

const CMCD_HEADER_NAMES = new Set<string>(CMCD_HEADER_FIELDS.map((h) => h.toLowerCase()));

/** dash.js 5 writes CMCD v1 unless told otherwise; keep whichever version the payload has. */
function versionOf(data: CmcdData): 1 | 2 {
  return (data as { v?: number }).v === 2 ? 2 : 1;
}

function splitUrl(url: string): { base: string; params: string[]; hash: string } {
  const hashAt = url.indexOf('#');
  const hash = hashAt >= 0 ? url.slice(hashAt) : '';
  const rest = hashAt >= 0 ? url.slice(0, hashAt) : url;
  const queryAt = rest.indexOf('?');
  if (queryAt < 0) return { base: rest, params: [], hash };
  const query = rest.slice(queryAt + 1);
  return { base: rest.slice(0, queryAt), params: query === '' ? [] : query.split('&'), hash };
}

function joinUrl(base: string, params: string[], hash: string): string {
  return `${base}${params.length > 0 ? `?${params.join('&')}` : ''}${hash}`;
}

function isCmcdParam(part: string): boolean {
  return part === CMCD_PARAM || part.startsWith(`${CMCD_PARAM}=`);
}

function decodeQueryPayload(param: string | undefined): CmcdData {
  const raw = param?.slice(CMCD_PARAM.length + 1);
  if (!raw) return {};
  try {
    return decodeCmcd(decodeURIComponent(raw));
  } catch {
    return {};
  }
}

function decodeHeaderPayload(headers: Record<string, string>): CmcdData {
  try {
    return fromCmcdHeaders(headers);
  } catch {
    return {};
  }
}

/**
 * The request with `rtp` set (or removed, for undefined) in its CMCD payload, carried in `mode`.
 * Other query parameters and headers stay as they were; a request with nothing to change is
 * returned as it came.
 */
export function writeRtp(request: CmcdCarrier, rtpKbps: number | undefined, mode: CmcdMode): CmcdCarrier {
  const { base, params, hash } = splitUrl(request.url);
  const queryAt = params.findIndex(isCmcdParam);
  const queryParam = queryAt >= 0 ? params[queryAt] : undefined;
  const cmcdHeaders: Record<string, string> = {};
  const otherHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (CMCD_HEADER_NAMES.has(name.toLowerCase())) cmcdHeaders[name] = value;
    else otherHeaders[name] = value;
  }
  const hasHeaders = Object.keys(cmcdHeaders).length > 0;
  const data = { ...decodeHeaderPayload(cmcdHeaders), ...decodeQueryPayload(queryParam) } as Record<string, unknown>;
  const inPlace = mode === 'query' ? !hasHeaders : queryParam === undefined;
  if (inPlace && rtpKbps === data.rtp) return request;

  if (rtpKbps === undefined) delete data.rtp;
  else data.rtp = rtpKbps;
  const payload = data as Cmcd;
  const empty = Object.keys(data).length === 0;
  const options = { version: versionOf(data as CmcdData) };

  if (mode === 'query') {
    // Keep the parameter where dash.js put it.
    const encoded = empty ? [] : [toCmcdQuery(payload, options)];
    const nextParams = queryAt >= 0 ? [...params.slice(0, queryAt), ...encoded, ...params.slice(queryAt + 1)] : [...params, ...encoded];
    return { url: joinUrl(base, nextParams, hash), headers: otherHeaders };
  }
  if (!empty) for (const [name, value] of Object.entries(toCmcdHeaders(payload, options))) if (value) otherHeaders[name] = value;
  const rest = params.filter((p) => !isCmcdParam(p));
  return { url: joinUrl(base, rest, hash), headers: otherHeaders };
}

/** The URL without its CMCD parameter: what a decision reports and a server serves. */
export function urlWithoutCmcd(url: string): string {
  const { base, params, hash } = splitUrl(url);
  return joinUrl(base, params.filter((p) => !isCmcdParam(p)), hash);
}

/**
 * Reading the requested pace (CMCD `rtp`, kbps) from a request, and keeping the CMCD query
 * parameter out of everything downstream (file paths, cache keys).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { CMCD_PARAM, fromCmcdHeaders, fromCmcdQuery } from '@svta/cml-cmcd';

/** The CMCD query parameter (query mode). */
export const CMCD_QUERY_PARAM = CMCD_PARAM;
/**
 * Longest CMCD payload decoded, bytes. Real payloads are well under 1 KB; anything longer is
 * ignored unparsed so a client cannot make the server spend time on it.
 */
export const MAX_CMCD_PAYLOAD_BYTES = 4096;

export type RtpSource = 'query' | 'header';

/** What a request asked for: an rtp, nothing, or something unusable (with the reason, for the debug log). */
export type RtpReading =
  | { kind: 'rtp'; rtpKbps: number; source: RtpSource }
  | { kind: 'none' }
  | { kind: 'invalid'; source: RtpSource; reason: string };

function queryOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

/** A usable rtp is a finite, positive number (CTA-5004: integer kbps; fractions are tolerated). */
function rtpFrom(value: unknown, source: RtpSource): RtpReading {
  if (value === undefined) return { kind: 'none' };
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    return { kind: 'invalid', source, reason: `rtp ${JSON.stringify(value)} is not a positive number` };
  }
  return { kind: 'rtp', rtpKbps: value, source };
}

function readQuery(url: string): RtpReading {
  const params = new URLSearchParams(queryOf(url));
  const payloads = params.getAll(CMCD_QUERY_PARAM);
  if (payloads.length === 0) return { kind: 'none' };
  if (payloads.length > 1) {
    return { kind: 'invalid', source: 'query', reason: `${payloads.length} CMCD query parameters` };
  }
  if (payloads[0]!.length > MAX_CMCD_PAYLOAD_BYTES) {
    return { kind: 'invalid', source: 'query', reason: `CMCD payload of ${payloads[0]!.length} bytes` };
  }
  try {
    return rtpFrom(fromCmcdQuery(params).rtp, 'query');
  } catch (err) {
    return { kind: 'invalid', source: 'query', reason: (err as Error).message };
  }
}

function readHeaders(headers: IncomingHttpHeaders): RtpReading {
  const cmcd: Record<string, string> = {};
  let size = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith('cmcd-') || value === undefined) continue;
    const text = Array.isArray(value) ? value.join(',') : value;
    cmcd[name] = text;
    size += text.length;
  }
  if (size === 0) return { kind: 'none' };
  if (size > MAX_CMCD_PAYLOAD_BYTES) {
    return { kind: 'invalid', source: 'header', reason: `CMCD headers of ${size} bytes` };
  }
  try {
    return rtpFrom(fromCmcdHeaders(cmcd).rtp, 'header');
  } catch (err) {
    return { kind: 'invalid', source: 'header', reason: (err as Error).message };
  }
}

/**
 * The rtp a request carries: query mode first (the player chose it explicitly for this URL),
 * then header mode. Never throws.
 */
export function readRequestedRtp(req: { url?: string; headers: IncomingHttpHeaders }): RtpReading {
  const fromQuery = readQuery(req.url ?? '');
  return fromQuery.kind === 'none' ? readHeaders(req.headers) : fromQuery;
}

/** The URL without its CMCD query parameter(s); other parameters are kept byte for byte. */
export function stripCmcdQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const kept = url
    .slice(q + 1)
    .split('&')
    .filter((part) => part !== CMCD_QUERY_PARAM && !part.startsWith(`${CMCD_QUERY_PARAM}=`));
  return kept.length > 0 ? `${url.slice(0, q)}?${kept.join('&')}` : url.slice(0, q);
}

/**
 * Reading the requested pace (CMCD `rtp`, kbps) from a request, as a server must: bounded,
 * never throwing, and telling apart "none" from "unusable" (for a debug log). Decoding goes
 * through @svta/cml-cmcd; players never import this module, so its decoder stays out of their
 * bundles.
 */
import { CMCD_PARAM, fromCmcdHeaders, fromCmcdQuery } from '@svta/cml-cmcd';
import type { CmcdMode } from './cmcd-write.js';
import { splitUrl } from './cmcd-url.js';
import type { IgnoredRtpReason } from './pace-reasons.js';
import { isCmcdObjectType, type CmcdObjectType } from './shared-connection.js';

/**
 * Longest CMCD payload decoded, bytes. Real payloads are well under 1 KB; anything longer is
 * ignored unparsed so a client cannot make the server spend time on it.
 */
export const MAX_CMCD_PAYLOAD_BYTES = 4096;

/** Request headers as Node (`IncomingHttpHeaders`), fetch or Playwright hand them over; names in any case. */
export type HeaderRecord = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * What a request asked for: an rtp, nothing, or something unusable (`code` from a bounded set, for
 * Server-Timing and metrics; `reason` in detail, for a debug log).
 */
export type RtpReading =
  | { kind: 'rtp'; rtpKbps: number; source: CmcdMode }
  | { kind: 'none' }
  | { kind: 'invalid'; source: CmcdMode; code: IgnoredRtpReason; reason: string };

/** A usable rtp is a finite, positive number (CTA-5004: integer kbps; fractions are tolerated). */
function rtpFrom(value: unknown, source: CmcdMode): RtpReading {
  if (value === undefined) return { kind: 'none' };
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    const code = typeof value === 'number' && !Number.isNaN(value) ? 'rtp_not_positive' : 'rtp_not_a_number';
    return { kind: 'invalid', source, code, reason: `rtp ${JSON.stringify(value)} is not a positive number` };
  }
  return { kind: 'rtp', rtpKbps: value, source };
}

/** What a server reads from a request's CMCD: the rtp and the object type (`ot`). */
export interface CmcdRequestReading {
  rtp: RtpReading;
  /** CMCD `ot` when the payload that decided the rtp carries a known one. */
  objectType?: CmcdObjectType;
}

const NONE: CmcdRequestReading = { rtp: { kind: 'none' } };

function reading(payload: { rtp?: unknown; ot?: unknown }, source: CmcdMode): CmcdRequestReading {
  const rtp = rtpFrom(payload.rtp, source);
  return isCmcdObjectType(payload.ot) ? { rtp, objectType: payload.ot } : { rtp };
}

function readQuery(url: string): CmcdRequestReading {
  const { params } = splitUrl(url);
  if (params.length === 0) return NONE;
  const query = new URLSearchParams(params.join('&'));
  const payloads = query.getAll(CMCD_PARAM);
  if (payloads.length === 0) return NONE;
  if (payloads.length > 1)
    return { rtp: { kind: 'invalid', source: 'query', code: 'cmcd_repeated', reason: `${payloads.length} CMCD query parameters` } };
  if (payloads[0]!.length > MAX_CMCD_PAYLOAD_BYTES) {
    return { rtp: { kind: 'invalid', source: 'query', code: 'cmcd_too_large', reason: `CMCD payload of ${payloads[0]!.length} bytes` } };
  }
  try {
    return reading(fromCmcdQuery(query), 'query');
  } catch (err) {
    return { rtp: { kind: 'invalid', source: 'query', code: 'cmcd_malformed', reason: (err as Error).message } };
  }
}

function readHeaders(headers: HeaderRecord): CmcdRequestReading {
  const cmcd: Record<string, string> = {};
  let size = 0;
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (!key.startsWith('cmcd-') || value === undefined) continue;
    const text = typeof value === 'string' ? value : value.join(',');
    cmcd[key] = cmcd[key] === undefined ? text : `${cmcd[key]},${text}`;
    size += text.length;
  }
  if (size === 0) return NONE;
  if (size > MAX_CMCD_PAYLOAD_BYTES)
    return { rtp: { kind: 'invalid', source: 'header', code: 'cmcd_too_large', reason: `CMCD headers of ${size} bytes` } };
  try {
    return reading(fromCmcdHeaders(cmcd), 'header');
  } catch (err) {
    return { rtp: { kind: 'invalid', source: 'header', code: 'cmcd_malformed', reason: (err as Error).message } };
  }
}

/**
 * The rtp a request carries: the CMCD query parameter first (the player chose it explicitly for
 * this URL), then the `CMCD-*` headers (`rtp` travels in `CMCD-Status`). Never throws.
 */
export function readRtp(request: { url?: string; headers?: HeaderRecord }): RtpReading {
  return readCmcdRequest(request).rtp;
}

/**
 * The rtp (as readRtp) and the object type from the same payload: the query when it carries an
 * rtp or anything unusable, else the headers. Never throws.
 */
export function readCmcdRequest(request: { url?: string; headers?: HeaderRecord }): CmcdRequestReading {
  const fromQuery = readQuery(request.url ?? '');
  if (fromQuery.rtp.kind !== 'none') return fromQuery;
  const fromHeaders = readHeaders(request.headers ?? {});
  return fromHeaders.rtp.kind === 'none' && fromHeaders.objectType === undefined ? fromQuery : fromHeaders;
}

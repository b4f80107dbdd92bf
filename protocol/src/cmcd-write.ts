/**
 * Putting a pace rate into the CMCD payload a player already wrote, as `rtp`, so that one
 * payload carries every key: one `CMCD` query parameter in query mode, one set of `CMCD-*`
 * headers in header mode (`rtp` in `CMCD-Status`).
 *
 * The player has encoded its payload already; this only replaces one member of that
 * structured-field dictionary, so it splices members as text and leaves every other member
 * byte for byte as the player wrote it (the payload version included). Names and the
 * key-to-header map come from @svta/cml-cmcd; its encoder and decoder (≈ 4 KB gzip, most of a
 * player plugin's weight) stay out of the players' bundles. Tests check the result with
 * cml-cmcd's own decoder and validator.
 */
import { CMCD_HEADER_FIELDS, CMCD_HEADER_MAP, CMCD_PARAM, type CmcdHeaderField } from '@svta/cml-cmcd';
import { isCmcdParam, joinUrl, splitUrl } from './cmcd-url.js';

/** How CMCD travels: the `CMCD` query parameter, or `CMCD-*` headers. */
export type CmcdMode = 'query' | 'header';

function isCmcdMode(mode: unknown): mode is CmcdMode {
  return mode === 'query' || mode === 'header';
}

/** `mode` as a CmcdMode, or a TypeError naming the option (the player adapters' `cmcdMode`). */
export function checkCmcdMode(mode: unknown): CmcdMode {
  if (!isCmcdMode(mode)) throw new TypeError(`Sammy: cmcdMode must be 'query' or 'header', got ${String(mode)}`);
  return mode;
}

/** What carries CMCD on a request. */
export interface CmcdCarrier {
  url: string;
  headers: Record<string, string>;
}

/** cml-cmcd sends keys it has no header for (custom keys) in CMCD-Request; so does this. */
const DEFAULT_HEADER: CmcdHeaderField = 'CMCD-Request';
/**
 * The keys cml-cmcd's CMCD_HEADER_MAP sends in a header other than CMCD-Request, by header: its
 * map in a tenth of the bytes it takes in a player's bundle (tested equal to it).
 */
const OTHER_HEADERS_KEYS: Readonly<Record<Exclude<CmcdHeaderField, typeof DEFAULT_HEADER>, string>> = {
  'CMCD-Object': 'ab br d lab lb ot tab tb tpb',
  'CMCD-Session': 'cid msd sf sid st v',
  'CMCD-Status': 'bg bs bsa bsd bsda cdn ec nr pr pt rtp',
};
const CMCD_HEADERS = [DEFAULT_HEADER, ...Object.keys(OTHER_HEADERS_KEYS)] as CmcdHeaderField[];

/** The CMCD header that carries `key`, as cml-cmcd's encoder sends it. */
export function cmcdHeaderOf(key: string): CmcdHeaderField {
  return CMCD_HEADERS.find((h) => (OTHER_HEADERS_KEYS as Record<string, string>)[h]?.split(' ').includes(key)) ?? DEFAULT_HEADER;
}

/** The CMCD header named `name` in any letter case, as cml-cmcd spells it; undefined for another header. */
function cmcdHeaderNamed(name: string): CmcdHeaderField | undefined {
  return CMCD_HEADERS.find((h) => h.toLowerCase() === name.toLowerCase());
}

/**
 * A structured-field dictionary's members: runs of strings (an unclosed one runs to the end), inner
 * lists (to their `)`) and any other character but a comma. The same split as a scan counting
 * quotes and parentheses wherever lists do not nest (in a structured field they never do).
 */
const MEMBER = /(?:"(?:\\[^]|[^"\\])*"?|\((?:"(?:\\[^]|[^"\\])*"?|[^")])*\)?|[^,"(])+/g;

function membersOf(payload: string): string[] {
  return (payload.match(MEMBER) ?? []).map((m) => m.trim()).filter((m) => m !== '');
}

function keyOf(member: string): string {
  return /^[^=;]*/.exec(member)![0];
}

function decodeQueryPayload(param: string | undefined): string {
  if (param === undefined) return '';
  try {
    return decodeURIComponent(param.slice(CMCD_PARAM.length + 1));
  } catch {
    return ''; // Not percent-encoding: nothing a server could read either.
  }
}

/**
 * The request with `rtp` set (or removed, for undefined) in its CMCD payload, carried in `mode`.
 * Other query parameters, other headers and other CMCD keys stay as they were; a request with
 * nothing to change is returned as it came. `rtpKbps` must be a positive integer (CTA-5004).
 */
export function writeRtp(request: CmcdCarrier, rtpKbps: number | undefined, mode: CmcdMode): CmcdCarrier {
  if (rtpKbps !== undefined && !(Number.isSafeInteger(rtpKbps) && rtpKbps > 0)) {
    throw new RangeError(`CMCD rtp must be a positive integer of kbps, got ${rtpKbps}`);
  }
  checkCmcdMode(mode);
  const url = splitUrl(request.url);
  const queryAt = url.params.findIndex(isCmcdParam);
  // Members by key, headers first, then the query (which wins, as a server reads it first).
  const byKey = new Map<string, string>();
  const otherHeaders: Record<string, string> = {};
  let hasHeaders = false;
  for (const [name, value] of Object.entries(request.headers)) {
    if (!cmcdHeaderNamed(name)) otherHeaders[name] = value;
    else {
      hasHeaders = true;
      for (const m of membersOf(value)) byKey.set(keyOf(m), m);
    }
  }
  for (const m of membersOf(decodeQueryPayload(url.params[queryAt]))) byKey.set(keyOf(m), m);

  const wanted = rtpKbps === undefined ? undefined : `rtp=${rtpKbps}`;
  const inPlace = mode === 'query' ? !hasHeaders : queryAt < 0;
  if (inPlace && byKey.get('rtp') === wanted) return request;
  if (wanted === undefined) byKey.delete('rtp');
  else byKey.set('rtp', wanted);
  // CTA-5004 orders keys alphabetically (players already do; a spliced rtp keeps the order).
  const keys = [...byKey.keys()].sort();

  if (mode === 'query') {
    const encoded = keys.length > 0 ? [`${CMCD_PARAM}=${encodeURIComponent(keys.map((k) => byKey.get(k)).join(','))}`] : [];
    // (url is splitUrl's own fresh object: its params may change in place.)
    if (queryAt < 0) url.params.push(...encoded);
    else url.params.splice(queryAt, 1, ...encoded);
    return { url: joinUrl(url), headers: otherHeaders };
  }
  for (const k of keys) {
    const header = cmcdHeaderOf(k);
    const member = byKey.get(k)!;
    otherHeaders[header] = otherHeaders[header] === undefined ? member : `${otherHeaders[header]},${member}`;
  }
  url.params = url.params.filter((p) => !isCmcdParam(p));
  return { url: joinUrl(url), headers: otherHeaders };
}

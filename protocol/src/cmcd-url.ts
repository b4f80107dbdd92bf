/**
 * The one way this project splits a URL: players, servers, the demo and the lab all name a
 * response by its path and never by its CMCD parameter, which changes on every request.
 * Plain string work (no `new URL`): it runs on every request in the player and the server, and
 * must keep every other byte of the URL as it was.
 */
import { CMCD_PARAM } from '@svta/cml-cmcd';

/** A URL cut at its query and fragment; `params` are the raw `name=value` parts, in order. */
export interface UrlParts {
  /** Everything before `?` (or `#`): scheme, authority and path, or a bare path. */
  base: string;
  params: string[];
  /** The fragment with its `#`, or ''. */
  hash: string;
}

export function splitUrl(url: string): UrlParts {
  // The base runs to the first '?' or '#'; the query (absent without a '?' before any '#') to the '#'.
  const [, base, query, hash] = /^([^#?]*)(?:\?([^#]*))?(.*)$/s.exec(url) as unknown as [string, string, string | undefined, string];
  return { base, params: query ? query.split('&') : [], hash };
}

export function joinUrl({ base, params, hash }: UrlParts): string {
  return `${base}${params.length > 0 ? `?${params.join('&')}` : ''}${hash}`;
}

/** Whether a raw query part (`name=value`) is the CMCD parameter. */
export function isCmcdParam(part: string): boolean {
  return part === CMCD_PARAM || part.startsWith(`${CMCD_PARAM}=`);
}

/** The URL without its CMCD query parameter(s); every other byte is kept. */
export function withoutCmcd(url: string): string {
  const parts = splitUrl(url);
  if (!parts.params.some(isCmcdParam)) return url;
  return joinUrl({ ...parts, params: parts.params.filter((p) => !isCmcdParam(p)) });
}

const SCHEME_AND_AUTHORITY = /^[a-z][a-z\d+.-]*:\/\/[^/]*/i;

/**
 * The path of an absolute URL or of a path, without query or fragment: how delivery records,
 * decisions and Resource Timing entries are matched to one another.
 */
export function pathOf(urlOrPath: string): string {
  const { base } = splitUrl(urlOrPath);
  const match = SCHEME_AND_AUTHORITY.exec(base);
  if (!match) return base;
  return base.slice(match[0].length) || '/';
}

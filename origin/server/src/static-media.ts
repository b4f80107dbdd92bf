/**
 * Static serving for media and the demo site: MIME types, caching, and containment — nothing
 * outside the served directory is ever sent, symlinks included.
 */
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { extname, join, normalize, sep } from 'node:path';
import parseUrl from 'parseurl';
import serveStatic from 'serve-static';

/** A Connect-style handler on node:http's or node:http2's request and response (Express's router runs either). */
export type Handler = (
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
  next: (err?: unknown) => void,
) => void;

/** A plain-text answer, on either protocol. */
export function answer(res: ServerResponse | Http2ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** DASH and HLS types the generic MIME table gets wrong or lacks. */
const MEDIA_TYPES: Record<string, string> = {
  '.mpd': 'application/dash+xml',
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.m4s': 'video/iso.segment',
  '.mp4': 'video/mp4',
  '.m4a': 'audio/mp4',
  '.m4v': 'video/mp4',
};

/** realpath errors that mean "no such file": serve-static answers those (404, or falls through). */
const NOT_FOUND = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG']);

/** The directory index serve-static sends for a directory (its default); none for media. */
type IndexFile = 'index.html' | undefined;

/** `serve` also when the file is missing: serve-static then answers 404 (or falls through). */
async function verdict(root: Promise<string>, relative: string, index: IndexFile): Promise<'serve' | 'forbidden' | 'unreadable'> {
  try {
    const base = await root;
    const inside = (real: string) => real === base || real.startsWith(base + sep);
    // The file send() will open: its `normalize(join(root, '.' + sep + path))`, every link resolved.
    const real = await realpath(join(base, normalize('.' + sep + relative)));
    if (!inside(real)) return 'forbidden';
    // A directory is answered with its index file, which may itself be a link out of the root.
    if (index !== undefined && (await stat(real)).isDirectory())
      return inside(await realpath(join(real, index)).catch(() => real)) ? 'serve' : 'forbidden';
    return 'serve';
  } catch (err) {
    const code = (err as { code?: string }).code;
    return code !== undefined && NOT_FOUND.has(code) ? 'serve' : 'unreadable';
  }
}

/**
 * Refuses (403) a request whose file, every symlink resolved, lies outside `root`: serve-static
 * refuses `..` but follows symlinks, so `evil.m4s -> /etc/passwd` in a media directory would be
 * served. A symlink inside the root to a file inside it is served as usual. The path checked is the
 * one serve-static opens, parsed from the request target the same way (`parseurl`): absolute-form
 * targets (`GET http://host/media/…`) and anything after a `#` must not make the two disagree.
 */
export function containedIn(root: string, index?: IndexFile): Handler {
  let realRoot: Promise<string> | undefined;
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    let relative: string;
    try {
      relative = decodeURIComponent(parseUrl(req as IncomingMessage)?.pathname ?? '/');
    } catch {
      return next(); // malformed encoding: serve-static answers 400
    }
    if (relative.includes('\0')) return next(); // likewise
    // A root that does not exist yet (content generated later) is looked up again next time.
    const rootPromise = (realRoot ??= realpath(root).catch((err: unknown) => {
      realRoot = undefined;
      throw err;
    }));
    verdict(rootPromise, relative, index).then((v) => {
      if (v === 'serve') next();
      else if (v === 'forbidden') answer(res, 403, '403 Forbidden\n');
      // A symlink loop, a directory it may not read: nothing to serve, and no 5xx for it.
      else answer(res, 404, '404 Not Found\n');
    }, next);
  };
}

/**
 * A request target with a fragment is malformed (RFC 9112 §3.2 has none; browsers never send one):
 * 400, before any handler has to decide what `#` means for a path.
 */
export const rejectFragments: Handler = (req, res, next) => {
  if ((req.url ?? '').includes('#')) answer(res, 400, '400 Bad Request\n');
  else next();
};

/**
 * Manifests and HTML may change (content regenerated, site rebuilt): revalidate every time.
 * Segments and hashed assets do not change under the same name: cache for a day.
 */
function setHeaders(res: ServerResponse, path: string): void {
  const ext = extname(path).toLowerCase();
  const type = MEDIA_TYPES[ext];
  if (type) res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', ext === '.mpd' || ext === '.m3u8' || ext === '.html' || ext === '' ? 'no-cache' : 'public, max-age=86400');
}

/** Media: errors (404, 403 on traversal or on a symlink out of `dir`, 400 on bad encoding) are answered, not passed on. */
export function serveMedia(dir: string): Handler[] {
  return [containedIn(dir), serveStatic(dir, { fallthrough: false, index: false, dotfiles: 'ignore', setHeaders }) as Handler];
}

export function serveSite(dir: string): Handler[] {
  return [containedIn(dir, 'index.html'), serveStatic(dir, { index: 'index.html', setHeaders }) as Handler];
}

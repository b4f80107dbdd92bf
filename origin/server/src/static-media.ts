/** Static serving for media and the demo site: MIME types, caching and CORS headers. */
import type { ServerResponse } from 'node:http';
import { extname } from 'node:path';
import express, { type RequestHandler } from 'express';
import { CONGESTION_CONTROL_HEADER } from 'sammy-pacing-protocol';
import { CMCD_HEADER_FIELDS } from '@svta/cml-cmcd';

/** DASH types the generic MIME table gets wrong or lacks. */
const MEDIA_TYPES: Record<string, string> = {
  '.mpd': 'application/dash+xml',
  '.m4s': 'video/iso.segment',
  '.mp4': 'video/mp4',
  '.m4a': 'audio/mp4',
  '.m4v': 'video/mp4',
};

/** Headers a cross-origin player needs: CMCD headers and the congestion-control header in, timing and ranges out. */
export const CORS_ALLOW_HEADERS = ['Range', ...CMCD_HEADER_FIELDS, CONGESTION_CONTROL_HEADER].join(', ');
export const CORS_EXPOSE_HEADERS = 'Server-Timing, Content-Length, Content-Range, Accept-Ranges';

export const cors: RequestHandler = (req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
    return;
  }
  next();
};

/**
 * Manifests and HTML may change (content regenerated, site rebuilt): revalidate every time.
 * Segments and hashed assets do not change under the same name: cache for a day.
 */
function setHeaders(res: ServerResponse, path: string): void {
  const ext = extname(path).toLowerCase();
  const type = MEDIA_TYPES[ext];
  if (type) res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', ext === '.mpd' || ext === '.html' || ext === '' ? 'no-cache' : 'public, max-age=86400');
}

/** Media: errors (404, 403 on traversal, 400 on bad encoding) are answered, not passed on. */
export function serveMedia(dir: string): RequestHandler {
  return express.static(dir, { fallthrough: false, index: false, dotfiles: 'ignore', setHeaders });
}

export function serveSite(dir: string): RequestHandler {
  return express.static(dir, { setHeaders });
}

/** `startOrigin()`: the demo site, the media and the records from one origin, every response paced. */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import cors from 'cors';
import express, { type ErrorRequestHandler } from 'express';
import { STATUS_CODES } from 'node:http';
import { MEDIA_PATH, type CongestionControl } from 'sammy-pacing-protocol';
import { DEFAULT_MEDIA_ROOT, DEFAULT_SITE_DIR } from '@sammy/test-content';
import {
  sammyCorsOptions,
  sammyPacing,
  sammyRecords,
  type DeliveryRecordLog,
  type PacingMode,
  type SammyLogger,
  type SammyPacingHandler,
  type SammyRecordsHandler,
} from 'sammy-pacing-express';
import { placeholderPage } from './placeholder-page.js';
import { serveMedia, serveSite } from './static-media.js';

export { MEDIA_PATH };
export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '127.0.0.1';
/**
 * Largest request head accepted, bytes. Node's default (16 KB) answers 431 to a request carrying an
 * oversized CMCD header; with room for 64 KB of junk such a request is served, its CMCD ignored
 * (the middleware decodes at most MAX_CMCD_PAYLOAD_BYTES).
 */
export const DEFAULT_MAX_HEADER_BYTES = 96 * 1024;

/**
 * Node's server timeouts, set for a media origin (Node's defaults in brackets). Responses are bounded
 * by the pacing middleware's progress timeout; these bound what a client sends and idle connections.
 * - headersTimeout 10 s [60 s]: a player's request head fits one packet; a slowloris head is dropped
 *   within 10 s plus one connections check.
 * - requestTimeout 15 s [300 s]: segment requests are GETs without a body; must be ≥ headersTimeout.
 * - connectionsCheckingInterval 1 s [30 s]: how often the two above are checked (a walk over open
 *   connections; cheap), so they hold to about a second.
 * - keepAliveTimeout 15 s [5 s]: longer than the gap between two segment requests of a player whose
 *   buffer is full (one segment duration, 2–10 s), so a playing session keeps its warm, already-paced
 *   connection; an idle connection costs one fd and a few KB. The middleware counts it from the last
 *   byte the client acknowledged, not from when Node finished writing.
 */
export const MEDIA_ORIGIN_SERVER_OPTIONS = {
  headersTimeout: 10_000,
  requestTimeout: 15_000,
  connectionsCheckingInterval: 1_000,
  keepAliveTimeout: 15_000,
} as const;

export interface StartOriginOptions {
  /** TCP port; 0 picks a free one. Default 8080. */
  port?: number;
  /** Address to listen on. Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Served at /media/. Default: the repo's .cache/media (the test ladder is its `default/`). */
  mediaDir?: string;
  /** Built demo site, served at /. Default demo-site/dist; a placeholder page when absent. */
  siteDir?: string;
  /** Default `auto`. */
  pacing?: PacingMode;
  congestionControl?: CongestionControl;
  allowClientCongestionControl?: boolean;
  minPaceKbps?: number;
  maxPaceKbps?: number;
  userspaceBurstMs?: number;
  records?: DeliveryRecordLog | number;
  /**
   * Publish the delivery records (RECORDS_PATH, RECORD_EVENTS_PATH) for the demo page. They name
   * every viewer's paths and timings: default on only when listening on a loopback address.
   */
  serveRecords?: boolean;
  logger?: SammyLogger;
  /** Largest request head, bytes. Default DEFAULT_MAX_HEADER_BYTES (96 KB). */
  maxHeaderSize?: number;
}

export interface RunningOrigin {
  /** e.g. http://127.0.0.1:8080 (no trailing slash). */
  url: string;
  port: number;
  server: Server;
  pacing: SammyPacingHandler;
  /** The records handler, when records are served. */
  records: SammyRecordsHandler | undefined;
  close(): Promise<void>;
}

/** `localhost`, 127.0.0.0/8 or ::1 (IPv4-mapped too): only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

const errorHandler: ErrorRequestHandler = (err: { status?: number; statusCode?: number }, _req, res, next) => {
  if (res.headersSent) return next(err);
  const status = err.status ?? err.statusCode ?? 500;
  res.status(status).type('text/plain').send(`${status} ${STATUS_CODES[status] ?? ''}\n`);
};

export function createOriginApp(opts: StartOriginOptions = {}): {
  app: express.Express;
  pacing: SammyPacingHandler;
  records: SammyRecordsHandler | undefined;
} {
  const siteDir = opts.siteDir ?? DEFAULT_SITE_DIR;
  const pacing = sammyPacing({
    mechanism: opts.pacing,
    congestionControl: opts.congestionControl,
    allowClientCongestionControl: opts.allowClientCongestionControl,
    minPaceKbps: opts.minPaceKbps,
    maxPaceKbps: opts.maxPaceKbps,
    userspaceBurstMs: opts.userspaceBurstMs,
    records: opts.records,
    logger: opts.logger,
  });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', 'strong');
  // Records first: same-origin only (no CORS headers), and neither paced nor recorded themselves.
  const records = (opts.serveRecords ?? isLoopbackHost(opts.host ?? DEFAULT_HOST)) ? sammyRecords(pacing.records) : undefined;
  if (records) app.use(records);
  app.use(cors(sammyCorsOptions));
  app.use(pacing);
  app.use(MEDIA_PATH, serveMedia(opts.mediaDir ?? DEFAULT_MEDIA_ROOT));
  if (existsSync(siteDir)) app.use(serveSite(siteDir));
  else app.get('/', (_req, res) => void res.type('html').set('Cache-Control', 'no-cache').send(placeholderPage(siteDir, records !== undefined)));
  app.use(errorHandler);
  return { app, pacing, records };
}

export async function startOrigin(opts: StartOriginOptions = {}): Promise<RunningOrigin> {
  const { app, pacing, records } = createOriginApp(opts);
  const server = createServer({ ...MEDIA_ORIGIN_SERVER_OPTIONS, maxHeaderSize: opts.maxHeaderSize ?? DEFAULT_MAX_HEADER_BYTES }, app);
  const host = opts.host ?? DEFAULT_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? DEFAULT_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    server,
    pacing,
    records,
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        records?.close();
        pacing.close();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      })),
  };
}

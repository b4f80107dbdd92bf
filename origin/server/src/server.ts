/** `startOrigin()`: the demo site, the media and the records from one origin, every response paced. */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { STATUS_CODES } from 'node:http';
import { MEDIA_PATH, type CongestionControl } from 'sammy-pacing-protocol';
import { DEFAULT_MEDIA_ROOT, DEFAULT_SITE_DIR } from '@sammy/test-content';
import { sammyPacing, type DeliveryRecordLog, type PacingMode, type SammyLogger, type SammyPacingHandler } from 'sammy-pacing-express';
import { placeholderPage } from './placeholder-page.js';
import { cors, serveMedia, serveSite } from './static-media.js';

export { MEDIA_PATH };
export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '127.0.0.1';
/**
 * Largest request head accepted, bytes. Node's default (16 KB) answers 431 to a request carrying an
 * oversized CMCD header; with room for 64 KB of junk such a request is served, its CMCD ignored
 * (the middleware decodes at most MAX_CMCD_PAYLOAD_BYTES).
 */
export const DEFAULT_MAX_HEADER_BYTES = 96 * 1024;

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
  close(): Promise<void>;
}

const errorHandler: ErrorRequestHandler = (err: { status?: number; statusCode?: number }, _req, res, next) => {
  if (res.headersSent) return next(err);
  const status = err.status ?? err.statusCode ?? 500;
  res.status(status).type('text/plain').send(`${status} ${STATUS_CODES[status] ?? ''}\n`);
};

export function createOriginApp(opts: StartOriginOptions = {}): { app: express.Express; pacing: SammyPacingHandler } {
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
  app.use(cors);
  app.use(pacing);
  app.use(MEDIA_PATH, serveMedia(opts.mediaDir ?? DEFAULT_MEDIA_ROOT));
  if (existsSync(siteDir)) app.use(serveSite(siteDir));
  else app.get('/', (_req, res) => void res.type('html').set('Cache-Control', 'no-cache').send(placeholderPage(siteDir)));
  app.use(errorHandler);
  return { app, pacing };
}

export async function startOrigin(opts: StartOriginOptions = {}): Promise<RunningOrigin> {
  const { app, pacing } = createOriginApp(opts);
  const server = createServer({ maxHeaderSize: opts.maxHeaderSize ?? DEFAULT_MAX_HEADER_BYTES }, app);
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
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        pacing.close();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      })),
  };
}

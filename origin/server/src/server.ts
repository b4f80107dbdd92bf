/**
 * `startOrigin()`: the demo site, the media and the records from one origin, every response paced.
 *
 * One handler chain on Express's own router (the `router` package Express 5 is built on), served by
 * node:http (plain HTTP/1.1) or node:http2 (HTTPS with ALPN: h2, and http/1.1 for clients without it).
 * Not an Express app: Express 5 swaps each request's prototype for one built on node:http's
 * IncomingMessage, which breaks node:http2's compatibility objects (it crashes on the first h2
 * request); the router and the middleware (cors, serve-static, sammy-pacing-express) run on both.
 */
import { existsSync } from 'node:fs';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import cors from 'cors';
import finalhandler from 'finalhandler';
import Router from 'router';
import { type CongestionControl } from 'sammy-pacing-protocol';
import { MEDIA_PATH } from '@sammy/test-content/media-paths';
import { DEFAULT_MEDIA_ROOT, DEFAULT_SITE_DIR } from '@sammy/test-content';
import {
  DeliveryRecordLog,
  isLoopbackHost,
  releaseHttp2Sockets,
  sammyCorsOptions,
  sammyPacing,
  sammyMetricsEndpoint,
  sammyRecords,
  type MetricsRegistry,
  type PacingMode,
  type SammyLogger,
  type SammyPacingHandler,
  type SammyRecordsHandler,
} from 'sammy-pacing-express';
import { originMetricsRegistry } from './metrics-registry.js';
import { placeholderPage } from './placeholder-page.js';
import { answer, rejectFragments, serveMedia, serveSite, type Handler } from './static-media.js';
import { DEFAULT_MAX_CONNECTIONS_PER_CLIENT, limitConnectionsPerClient } from './client-limits.js';
import { ifRangeStrongOnly, rejectLooseFraming } from './strict-framing.js';
import type { TlsCredentials } from './dev-certificate.js';

export { MEDIA_PATH };
export const DEFAULT_PORT = 8080;
/** The HTTPS (h2 + http/1.1) port of `npm start`. */
export const DEFAULT_HTTPS_PORT = 8443;
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
  /** sammyPacing's progressTimeoutMs: a client whose bytes do not move for this long is reset. Default 30 s. */
  progressTimeoutMs?: number;
  records?: DeliveryRecordLog | number;
  /**
   * Publish the delivery records (RECORDS_PATH, RECORD_EVENTS_PATH) for the demo page. They name
   * every viewer's paths and timings: default on only when listening on a loopback address.
   */
  serveRecords?: boolean;
  /**
   * Prometheus metrics at /metrics (METRICS_PATH), under the records' host rule (loopback names, the
   * listen address): into this registry (the CLI's listeners share one), or a new one with the process's
   * default metrics; `false` for none. Default: a new one.
   */
  metrics?: MetricsRegistry | false;
  /**
   * The registry /metrics serves, when not `metrics` itself: a cluster worker serves the whole cluster's sum
   * (clusterMetricsRegistry()), its own pacing metrics going into `metrics`.
   */
  servedMetrics?: MetricsRegistry;
  logger?: SammyLogger;
  /**
   * Connections one remote address may hold open on this listener; more are refused (closed at
   * once). Default DEFAULT_MAX_CONNECTIONS_PER_CLIENT (64).
   */
  maxConnectionsPerClient?: number;
  /** Largest request head, bytes. Default DEFAULT_MAX_HEADER_BYTES (96 KB). */
  maxHeaderSize?: number;
  /**
   * Serve HTTPS with these credentials, HTTP/2 and HTTP/1.1 by ALPN (devCertificate() makes one for
   * localhost). Default: plain HTTP/1.1.
   */
  tls?: TlsCredentials;
}

/** A request listener for node:http and node:http2 (compatibility API) alike. */
export type OriginHandler = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void;

export interface RunningOrigin {
  /** e.g. http://127.0.0.1:8080 or https://localhost:8443 (no trailing slash). */
  url: string;
  port: number;
  server: Server | Http2SecureServer;
  /** `https` (h2 and http/1.1) or `http` (http/1.1). */
  protocol: 'http' | 'https';
  /** The TLS credentials served, when HTTPS. */
  tls?: TlsCredentials;
  pacing: SammyPacingHandler;
  /** The records handler, when records are served. */
  records: SammyRecordsHandler | undefined;
  close(): Promise<void>;
}

/**
 * The names this server answers records under (besides loopback's): the address it listens on, or
 * for a wildcard address this machine's name and interface addresses. Any other `Host` is refused.
 */
function ownHostNames(host: string): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [host];
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
  return [hostname(), ...addresses];
}

/**
 * One records handler per log: the CLI's HTTP and HTTPS listeners share a log, and so one subscriber
 * cap (16 event streams for the origin, as documented, not 16 per listener).
 */
const recordsHandlers = new WeakMap<DeliveryRecordLog, SammyRecordsHandler>();
function recordsHandlerFor(log: DeliveryRecordLog, host: string): SammyRecordsHandler {
  let handler = recordsHandlers.get(log);
  if (!handler) recordsHandlers.set(log, (handler = sammyRecords(log, { allowedHosts: ownHostNames(host) })));
  return handler;
}

/**
 * The router's types name node:http's request and response; every handler here runs on node:http2's
 * compatibility objects as well (tested over h2).
 */
function routed(handler: Handler | ((...args: never[]) => void)): Router.RequestHandler {
  return handler as unknown as Router.RequestHandler;
}

/** Errors (serve-static's 400/403/404, …) as plain text; what the chain leaves unanswered is finalhandler's 404. */
function errorHandler(
  err: { status?: number; statusCode?: number },
  _req: unknown,
  res: ServerResponse | Http2ServerResponse,
  next: (err?: unknown) => void,
): void {
  if (res.headersSent) return next(err);
  const status = err.status ?? err.statusCode ?? 500;
  answer(res, status, `${status} ${STATUS_CODES[status] ?? ''}\n`);
}

export function createOriginApp(opts: StartOriginOptions = {}): {
  handler: OriginHandler;
  pacing: SammyPacingHandler;
  records: SammyRecordsHandler | undefined;
} {
  const siteDir = opts.siteDir ?? DEFAULT_SITE_DIR;
  const registry = opts.metrics === false ? undefined : (opts.metrics ?? originMetricsRegistry());
  const pacing = sammyPacing({
    mechanism: opts.pacing,
    congestionControl: opts.congestionControl,
    allowClientCongestionControl: opts.allowClientCongestionControl,
    minPaceKbps: opts.minPaceKbps,
    maxPaceKbps: opts.maxPaceKbps,
    userspaceBurstMs: opts.userspaceBurstMs,
    progressTimeoutMs: opts.progressTimeoutMs,
    records: opts.records,
    logger: opts.logger,
    metrics: registry && { registry },
  });
  const router = Router();
  router.use(routed(rejectFragments));
  router.use(routed(rejectLooseFraming));
  router.use(routed(ifRangeStrongOnly));
  // Records first: same-origin only (no CORS headers), and neither paced nor recorded themselves.
  const host = opts.host ?? DEFAULT_HOST;
  const records = (opts.serveRecords ?? isLoopbackHost(host)) ? recordsHandlerFor(pacing.records, host) : undefined;
  if (records) router.use(routed(records));
  if (pacing.metrics) {
    const served = opts.servedMetrics ? { registry: opts.servedMetrics } : pacing.metrics;
    router.use(routed(sammyMetricsEndpoint(served, { allowedHosts: ownHostNames(host) })));
  }
  router.use(routed(cors(sammyCorsOptions)));
  router.use(routed(pacing));
  router.use(MEDIA_PATH, serveMedia(opts.mediaDir ?? DEFAULT_MEDIA_ROOT).map(routed));
  if (existsSync(siteDir)) router.use(serveSite(siteDir).map(routed));
  else {
    const page = placeholderPage(siteDir, records !== undefined);
    router.get('/', (_req, res) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache');
      res.end(page);
    });
  }
  router.use(errorHandler as unknown as Router.ErrorRequestHandler);
  const handler: OriginHandler = (req, res) =>
    router(req as IncomingMessage, res as ServerResponse, finalhandler(req as IncomingMessage, res as ServerResponse));
  return { handler, pacing, records };
}

/**
 * HTTPS, h2 and http/1.1 by ALPN. HTTP/1.1 requests on it go through node:http's own connection
 * handling, which reads its timeouts from the server object: the same media-origin values as plain HTTP.
 * HTTP/2 sessions: at most 100 concurrent streams each (a player needs a handful), and a request head
 * list as large as the HTTP/1.1 one.
 */
function secureServer(tls: TlsCredentials, maxHeaderSize: number, handler: OriginHandler): Http2SecureServer {
  const server = createSecureServer(
    {
      key: tls.key,
      cert: tls.cert,
      // [120 s] A TLS handshake gets as long as a request head: a client that opens and says nothing
      // holds its socket 10 s, not two minutes.
      handshakeTimeout: MEDIA_ORIGIN_SERVER_OPTIONS.headersTimeout,
      allowHTTP1: true,
      maxSessionMemory: 64,
      settings: { maxConcurrentStreams: 100, maxHeaderListSize: maxHeaderSize },
      maxHeaderListPairs: 256,
    },
    handler,
  );
  // requireHostHeader: HTTP/1.1 without Host is 400 over TLS as on plain HTTP (node:http's default;
  // node:http2's server, which hands HTTP/1.1 to node:http, does not set it).
  Object.assign(server, MEDIA_ORIGIN_SERVER_OPTIONS, { maxHeaderSize, requireHostHeader: true });
  const open = new Set<Socket>();
  sockets.set(server, open);
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  // An h2 session with nothing to do for the keep-alive time is closed, as an idle HTTP/1.1 connection is.
  server.setTimeout(MEDIA_ORIGIN_SERVER_OPTIONS.keepAliveTimeout);
  // Each session's socket closed with it (node:http2 can leave it open for good).
  releaseHttp2Sockets(server);
  return server;
}

export async function startOrigin(opts: StartOriginOptions = {}): Promise<RunningOrigin> {
  const { handler, pacing, records } = createOriginApp(opts);
  const maxHeaderSize = opts.maxHeaderSize ?? DEFAULT_MAX_HEADER_BYTES;
  const server = opts.tls
    ? secureServer(opts.tls, maxHeaderSize, handler)
    : createServer({ ...MEDIA_ORIGIN_SERVER_OPTIONS, maxHeaderSize }, handler);
  const maxConnectionsPerClient = opts.maxConnectionsPerClient ?? DEFAULT_MAX_CONNECTIONS_PER_CLIENT;
  if (!Number.isInteger(maxConnectionsPerClient) || maxConnectionsPerClient < 1) {
    throw new RangeError(`maxConnectionsPerClient must be a positive integer, got ${maxConnectionsPerClient}`);
  }
  limitConnectionsPerClient(server, maxConnectionsPerClient);
  const host = opts.host ?? DEFAULT_HOST;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? DEFAULT_PORT, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    // Not listening (a busy port): release the handlers' timers so that a caller serving on without it can exit.
    records?.close();
    pacing.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  const protocol = opts.tls ? 'https' : 'http';
  return {
    // The development certificate names localhost; the loopback address is shown by that name.
    url: `${protocol}://${opts.tls && urlHost === '127.0.0.1' ? 'localhost' : urlHost}:${port}`,
    port,
    server,
    protocol,
    tls: opts.tls,
    pacing,
    records,
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        records?.close();
        pacing.close();
        server.close((err) => (err ? reject(err) : resolve()));
        (server as Partial<Server>).closeAllConnections?.();
        if (opts.tls) destroySessions(server as Http2SecureServer);
      })),
  };
}

const sockets = new WeakMap<Http2SecureServer, Set<Socket>>();

/** node:http2 has no closeAllConnections: close() waits for every session, so end them. */
function destroySessions(server: Http2SecureServer): void {
  for (const socket of sockets.get(server) ?? []) socket.destroy();
}

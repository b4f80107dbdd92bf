/** An HTTP/2 (TLS, ALPN h2 + http/1.1) origin and node:http2 clients on loopback, for the shared-connection tests. */
import { connect, createSecureServer, type ClientHttp2Session, type Http2SecureServer, type IncomingHttpHeaders } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import finalhandler from 'finalhandler';
import Router from 'router';
import serveStatic from 'serve-static';
import { generate } from 'selfsigned';
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';
import { MEDIA_PATH } from '@sammy/test-content/media-paths';
import { releaseHttp2Sockets } from '../src/http2/sockets.js';
import { sendGateBytes } from '../src/socket/connection-socket.js';
import { silentLogger } from '../src/logger.js';
import { sammyPacing, type SammyPacingHandler } from '../src/middleware.js';
import type { SammyPacingOptions } from '../src/options.js';
import type { PacingMode } from '../src/engine/mechanism.js';
import { setMaxSegmentSize } from '../src/socket/socket-options.js';
import { ETHERNET_MSS } from './helpers.js';

export interface H2Origin {
  url: string;
  port: number;
  server: Http2SecureServer;
  pacing: SammyPacingHandler;
  /** Certificate (PEM) clients trust. */
  cert: string;
  close(): Promise<void>;
}

let certificate: Promise<{ private: string; cert: string }> | undefined;
function testCertificate() {
  return (certificate ??= generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  }) as Promise<{ private: string; cert: string }>);
}

/**
 * `sammyPacing()` + `serve-static` behind Express's own router (no Express app: Express 5 does not run
 * on node:http2's compatibility API) on an HTTPS server speaking h2 and http/1.1.
 */
export async function startH2Origin(
  mediaDir: string,
  opts: Omit<SammyPacingOptions, 'mechanism'> & { pacing?: PacingMode; untracked?: boolean } = {},
): Promise<H2Origin> {
  const { pacing: mechanism, untracked, ...pacingOptions } = opts;
  const { private: key, cert } = await testCertificate();
  const pacing = sammyPacing({ logger: silentLogger, mechanism, ...pacingOptions });
  const router = Router();
  // A response the middleware never sees (mounted before it, as a records event stream would be): 2 MB.
  if (untracked) router.get('/untracked', (_req, res) => void res.end(Buffer.alloc(2_000_000)));
  // The router's types name node:http's objects; it runs on node:http2's compatibility ones as well.
  router.use(pacing as unknown as Router.RequestHandler);
  router.use(MEDIA_PATH, serveStatic(mediaDir, { fallthrough: false, index: false }));
  const server = createSecureServer({ key, cert, allowHTTP1: true }, (req, res) => {
    const [r, s] = [req as unknown as IncomingMessage, res as unknown as ServerResponse];
    router(r, s, finalhandler(r, s));
  });
  // As the README asks of every HTTP/2 server (and the reference server does): a session's socket is closed once the
  // session is over, whatever ended it; without it, a socket whose client reset it mid-transfer could outlive its
  // destroyed session (Node 24, about one whole-file run in five) and hold close() for ever.
  releaseHttp2Sockets(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (fd !== undefined) setMaxSegmentSize(fd, ETHERNET_MSS);
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}`,
    port,
    server,
    pacing,
    cert,
    close: () =>
      new Promise<void>((resolve) => {
        pacing.close();
        server.close(() => resolve());
        // Sessions still open (a test's client) would hold close() for ever.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

/** The send gate (src/socket/connection-socket.ts) at a pace: bytes, and the time the pace takes to send them, ms. */
export function sendGateAt(paceKbps: number): { bytes: number; ms: number } {
  const bytesPerSecond = kbpsToBytesPerSecond(paceKbps);
  const bytes = sendGateBytes(paceKbps);
  return { bytes, ms: (bytes * 1000) / bytesPerSecond };
}

/**
 * Chromium's HTTP/2 flow-control windows (6 MB per stream, 15 MB per connection; Node's client
 * defaults to 64 KB): with Node's, a paced server is clocked by the client's WINDOW_UPDATEs in 64 KB
 * steps, which is neither what browsers do nor what the origin's cost should be measured against.
 */
export const BROWSER_STREAM_WINDOW = 6 * 1024 * 1024;
export const BROWSER_CONNECTION_WINDOW = 15 * 1024 * 1024;

/** A session with Chromium's windows, or (`nodeWindows`) Node's 64 KB ones: a client whose streams stay mid-transfer at the HTTP/2 level. */
export function h2Connect(origin: Pick<H2Origin, 'url' | 'cert'>, opts: { nodeWindows?: boolean } = {}): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = connect(origin.url, {
      ca: origin.cert,
      settings: opts.nodeWindows ? {} : { initialWindowSize: BROWSER_STREAM_WINDOW },
    });
    session.once('connect', () => {
      if (!opts.nodeWindows) session.setLocalWindowSize(BROWSER_CONNECTION_WINDOW);
      resolve(session);
    });
    session.once('error', reject);
  });
}

export interface H2Fetched {
  status: number;
  headers: IncomingHttpHeaders;
  bytes: number;
  /** From sending the request to the first body byte, ms. */
  firstByteMs: number;
  /** performance.now() of the request and of the last body byte. */
  sentAt: number;
  lastByteAt: number;
  /** Body rate from sending the request to the last byte, kbps. */
  rateKbps: number;
}

export interface H2ResetResult {
  /** Body bytes the client's stream had received (its `data` events) when it reset the stream. */
  received: number;
  /** The client socket's `bytesRead` at that moment: what arrives after it is what was in flight. */
  socketBytesAtReset: number;
}

/**
 * One stream on `session`, reset by the client (RST_STREAM CANCEL, as a player aborting its download)
 * once more than `afterBytes` of its body have arrived; resolves with what had arrived then.
 */
export function h2Reset(session: ClientHttp2Session, path: string, afterBytes: number): Promise<H2ResetResult> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let got = 0;
    let reset = false;
    stream.on('data', (d: Buffer) => {
      got += d.length;
      if (got > afterBytes && !reset) {
        reset = true;
        const socketBytesAtReset = session.socket.bytesRead;
        stream.close(0x8); // CANCEL
        resolve({ received: got, socketBytesAtReset });
      }
    });
    stream.on('error', reject);
    stream.end();
  });
}

/**
 * Waits until nothing more arrives on the client's socket (its `bytesRead` unchanged for `quietMs`),
 * and returns its `bytesRead`: after a reset, what the server had in flight has then landed.
 */
export async function h2SocketQuiet(session: ClientHttp2Session, quietMs = 300, timeoutMs = 10_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let last = session.socket.bytesRead;
  for (;;) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = session.socket.bytesRead;
    if (now === last) return now;
    if (performance.now() > deadline) throw new Error(`the client socket still receives after ${timeoutMs} ms`);
    last = now;
  }
}

/** One stream on `session`; resolves when its body has arrived. */
export function h2Get(session: ClientHttp2Session, path: string, headers: Record<string, string> = {}): Promise<H2Fetched> {
  return new Promise((resolve, reject) => {
    const sentAt = performance.now();
    const stream = session.request({ ':path': path, ...headers });
    let status = 0;
    let responseHeaders: IncomingHttpHeaders = {};
    let bytes = 0;
    let firstByteAt = 0;
    stream.on('response', (h) => {
      status = Number(h[':status']);
      responseHeaders = h;
    });
    stream.on('data', (d: Buffer) => {
      if (bytes === 0) firstByteAt = performance.now();
      bytes += d.length;
    });
    stream.on('end', () => {
      const lastByteAt = performance.now();
      const ms = lastByteAt - sentAt;
      resolve({
        status,
        headers: responseHeaders,
        bytes,
        firstByteMs: firstByteAt - sentAt,
        lastByteAt,
        sentAt,
        rateKbps: ms > 0 ? (bytes * 8) / ms : Infinity,
      });
    });
    stream.on('error', reject);
    stream.end();
  });
}

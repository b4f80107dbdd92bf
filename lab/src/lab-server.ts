/**
 * The lab's server, run inside the server namespace: the origin's own `sammyPacing` middleware in
 * front of the media, the lab page and a fixed-size object for the HTTP neighbour. Every response
 * (video, audio, manifest, neighbour HTTP) goes through the middleware, so each connection gets
 * the bench's congestion control and each paced response gets kernel pacing at its CMCD rtp.
 * Delivery records are published (sammyRecords) for the bench, which reads them through the page.
 *
 *   lab-server --host IP --port P --media DIR --page DIR --cc cubic --seed N [--tls-cert FILE --tls-key FILE]
 *
 * One handler chain on Express's own router (the `router` package Express 5 is built on, with
 * finalhandler and serve-static, as the reference origin): served by node:http (plain HTTP/1.1, the
 * default), or with --tls-cert/--tls-key by node:http2's secure server, HTTP/2 by ALPN and HTTP/1.1
 * for clients without it. Not an Express app: Express 5 cannot run on node:http2's compatibility
 * objects (it crashes on the first h2 request). On HTTP/2 the middleware paces each session's
 * connection by the shared-connection rules (sammy-pacing-protocol decideConnectionPace).
 *
 * Prints `{"ready":true,"port":P,"protocol":"http"|"https",…}` on stdout once listening; stops on SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import finalhandler from 'finalhandler';
import Router from 'router';
import serveStatic from 'serve-static';
import { isCongestionControl } from 'sammy-pacing-protocol';
import { MEDIA_PATH } from '@sammy/test-content/media-paths';
import { sammyPacing, sammyRecords } from 'sammy-pacing-express';
import { arg } from './args.js';
import { SignalMailbox, signalHandler, type SignalResponse } from './game/signalling.js';
import { rng } from './stats.js';

const cc = arg('cc', 'cubic');
if (!isCongestionControl(cc)) throw new Error(`unknown congestion control ${cc}`);
const MAX_BLOB_BYTES = 64 * 1024 * 1024;
const tlsCert = arg('tls-cert', '');
const tlsKey = arg('tls-key', '');
if (Boolean(tlsCert) !== Boolean(tlsKey)) throw new Error('--tls-cert and --tls-key go together');

/** Incompressible bytes from the seed, so every run fetches the same object. */
function blob(bytes: number, seed: number): Buffer {
  const random = rng(seed);
  const out = Buffer.alloc(bytes);
  for (let i = 0; i + 4 <= bytes; i += 4) out.writeUInt32LE(Math.floor(random() * 2 ** 32), i);
  for (let i = bytes - (bytes % 4); i < bytes; i++) out[i] = Math.floor(random() * 256);
  return out;
}

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;

/** The router's types name node:http's objects; every handler here runs on node:http2's compatibility objects too. */
function routed(handler: unknown): Router.RequestHandler {
  return handler as Router.RequestHandler;
}

const blobs = new Map<number, Buffer>();
const seed = Number(arg('seed', '1'));
const pacing = sammyPacing({
  mechanism: 'kernel',
  congestionControl: cc,
  records: 5000,
  logger: { info() {}, warn: (m: string) => console.error(m), debug() {} },
});

// The bench reads the delivery records from the page (same origin); they come before the pacing
// middleware so their own responses are neither paced nor recorded. The lab network is private, and the page
// names the server by its namespace address, which is not loopback: without 'any' the records answer 403.
const records = sammyRecords(pacing.records, { allowedHosts: 'any' });

// The game stream's signalling (offer/answer mailbox), before the pacing middleware: never paced or recorded.
const signal = signalHandler(new SignalMailbox());

const router = Router();
router.use(routed(records));
router.use(
  routed((req: Request, res: Response, next: () => void) => {
    if (!signal(req, res as unknown as SignalResponse)) next();
  }),
);
router.use(routed(pacing));
router.use(
  MEDIA_PATH,
  routed(serveStatic(arg('media'), { cacheControl: false, setHeaders: (res) => res.setHeader('Cache-Control', 'no-store') })),
);
router.use('/lab', routed(serveStatic(arg('page'), { cacheControl: false })));
router.get(
  '/lab/blob/:bytes',
  routed((req: Request & { params: Record<string, string> }, res: Response) => {
    const bytes = Number(req.params.bytes);
    if (!Number.isInteger(bytes) || bytes <= 0 || bytes > MAX_BLOB_BYTES) {
      res.statusCode = 400;
      res.end();
      return;
    }
    let body = blobs.get(bytes);
    if (!body) blobs.set(bytes, (body = blob(bytes, seed)));
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Cache-Control', 'no-store');
    res.end(body);
  }),
);

/** What the chain leaves unanswered, and errors: finalhandler's 404 or error page, as Express answers them. */
const handler = (req: Request, res: Response): void =>
  router(req as IncomingMessage, res as ServerResponse, finalhandler(req as IncomingMessage, res as ServerResponse));

const sockets = new Set<Socket>();
const server = tlsCert
  ? createSecureServer({ key: readFileSync(tlsKey), cert: readFileSync(tlsCert), allowHTTP1: true }, handler)
  : createServer(handler);
if (tlsCert) {
  // node:http2 has no closeAllConnections: remember the sockets to end them on stop.
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
}
server.listen(Number(arg('port')), arg('host'), () => {
  const { port } = server.address() as AddressInfo;
  console.log(JSON.stringify({ ready: true, port, protocol: tlsCert ? 'https' : 'http', mechanism: pacing.mechanism, cc }));
});
const stop = (): void => {
  records.close();
  pacing.close();
  server.close();
  if ('closeAllConnections' in server) server.closeAllConnections();
  for (const s of sockets) s.destroy();
  setTimeout(() => process.exit(0), 500).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

/**
 * The lab's server, run inside the server namespace: the origin's own `sammyPacing` middleware in
 * front of the media, the lab page and a fixed-size object for the HTTP neighbour. Every response
 * (video, audio, manifest, neighbour HTTP) goes through the middleware, so each connection gets
 * the bench's congestion control and each paced response gets kernel pacing at its CMCD rtp.
 * Delivery records are published (sammyRecords) for the bench, which reads them through the page.
 *
 *   lab-server --host IP --port P --media DIR --page DIR --cc cubic --seed N
 *
 * Prints `{"ready":true,…}` on stdout once listening; stops on SIGTERM.
 */
import express from 'express';
import { isCongestionControl, MEDIA_PATH } from 'sammy-pacing-protocol';
import { sammyPacing, sammyRecords } from 'sammy-pacing-express';
import { arg } from './args.js';
import { rng } from './stats.js';

const cc = arg('cc', 'cubic');
if (!isCongestionControl(cc)) throw new Error(`unknown congestion control ${cc}`);
const MAX_BLOB_BYTES = 64 * 1024 * 1024;

/** Incompressible bytes from the seed, so every run fetches the same object. */
function blob(bytes: number, seed: number): Buffer {
  const random = rng(seed);
  const out = Buffer.alloc(bytes);
  for (let i = 0; i + 4 <= bytes; i += 4) out.writeUInt32LE(Math.floor(random() * 2 ** 32), i);
  for (let i = bytes - (bytes % 4); i < bytes; i++) out[i] = Math.floor(random() * 256);
  return out;
}

const blobs = new Map<number, Buffer>();
const seed = Number(arg('seed', '1'));
const pacing = sammyPacing({ mechanism: 'kernel', congestionControl: cc, records: 5000, logger: { info() {}, warn: (m: string) => console.error(m), debug() {} } });

// The bench reads the delivery records from the page (same origin); they come before the pacing
// middleware so their own responses are neither paced nor recorded. The lab network is private.
const records = sammyRecords(pacing.records);

const app = express();
app.disable('x-powered-by');
app.use(records);
app.use(pacing);
app.use(MEDIA_PATH, express.static(arg('media'), { cacheControl: false, setHeaders: (res) => res.setHeader('Cache-Control', 'no-store') }));
app.use('/lab', express.static(arg('page'), { cacheControl: false }));
app.get('/lab/blob/:bytes', (req, res) => {
  const bytes = Number(req.params.bytes);
  if (!Number.isInteger(bytes) || bytes <= 0 || bytes > MAX_BLOB_BYTES) {
    res.status(400).end();
    return;
  }
  let body = blobs.get(bytes);
  if (!body) blobs.set(bytes, (body = blob(bytes, seed)));
  res.setHeader('Content-Type', 'application/octet-stream');
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
});

const server = app.listen(Number(arg('port')), arg('host'), () => {
  console.log(JSON.stringify({ ready: true, mechanism: pacing.mechanism, cc }));
});
const stop = (): void => {
  records.close();
  pacing.close();
  server.close();
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 500).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

/**
 * The HTTP neighbour, run inside the client namespace: fetches a fixed-size object over and over
 * and records each response time, from the request's first byte to the response's last byte.
 *
 *   http-fetches --url URL --until EPOCH_MS --gap-ms 500 --max 400 --out FILE [--header 'Name: value'] [--ca FILE]
 *
 * Bounded by count and by time; one keep-alive connection, like a page's fetch: an `http:` URL over
 * HTTP/1.1 (node:http), an `https:` URL over HTTP/2 (node:http2, one session, as a browser's fetch
 * would go to an h2 origin), trusting only the certificate in `--ca` (its name checked as usual).
 * Its own client and its own connection, never the video's.
 */
import http from 'node:http';
import http2 from 'node:http2';
import { readFileSync, writeFileSync } from 'node:fs';
import { arg } from '../args.js';
import type { HttpFetch } from '../measurements.js';

const url = new URL(arg('url'));
const until = Number(arg('until'));
const gapMs = Number(arg('gap-ms', '500'));
const max = Number(arg('max', '400'));
const out = arg('out');
const secure = url.protocol === 'https:';
if (!secure && url.protocol !== 'http:') throw new Error(`--url must be http: or https:, got ${url.protocol}`);
const caFile = arg('ca', '');
const ca = caFile ? readFileSync(caFile) : undefined;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
/** One extra request header (through an edge: the congestion control the bench pins). */
const header = arg('header', '');
const colon = header.indexOf(':');
if (header && colon <= 0) throw new Error(`--header must be "Name: value", got ${header}`);
const headers: Record<string, string> = header ? { [header.slice(0, colon).trim()]: header.slice(colon + 1).trim() } : {};

// What the run reads back (measurements.ts): one entry a request.
const fetches: HttpFetch[] = [];

function fetchOnce(): Promise<HttpFetch> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const start = Date.now();
    let bytes = 0;
    const req = http.get(url, { agent, headers }, (res) => {
      res.on('data', (d: Buffer) => (bytes += d.length));
      const protocol = `http/${res.httpVersion}`;
      res.on('end', () => resolve({ start, responseMs: performance.now() - t0, bytes, status: res.statusCode ?? 0, cut: false, protocol }));
      res.on('error', () =>
        resolve({ start, responseMs: performance.now() - t0, bytes, status: res.statusCode ?? 0, cut: true, protocol }),
      );
    });
    // The last fetch may outlive the run: abort it at the deadline and mark it cut.
    const timer = setTimeout(() => req.destroy(), Math.max(0, until - Date.now()) + 100);
    req.on('close', () => clearTimeout(timer));
    req.on('error', () => resolve({ start, responseMs: performance.now() - t0, bytes, status: 0, cut: true }));
  });
}

/** The HTTP/2 session every fetch shares; a new one only if the last one ended. */
let session: http2.ClientHttp2Session | undefined;
function h2Session(): http2.ClientHttp2Session {
  if (session && !session.closed && !session.destroyed) return session;
  const s = http2.connect(url.origin, { ca });
  // A failed session fails its streams (each resolves cut); the next fetch connects again.
  s.on('error', () => undefined);
  return (session = s);
}

function fetchOnceH2(): Promise<HttpFetch> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const start = Date.now();
    let bytes = 0;
    let status = 0;
    let settled = false;
    const done = (cut: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ start, responseMs: performance.now() - t0, bytes, status, cut, protocol: s.alpnProtocol });
    };
    const s = h2Session();
    const req = s.request({
      ':path': `${url.pathname}${url.search}`,
      ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    });
    req.on('response', (h) => (status = Number(h[':status'] ?? 0)));
    req.on('data', (d: Buffer) => (bytes += d.length));
    req.on('end', () => done(status === 0));
    req.on('error', () => done(true));
    req.on('close', () => done(true));
    req.end();
    // The last fetch may outlive the run: abort it at the deadline and mark it cut.
    const timer = setTimeout(() => req.close(http2.constants.NGHTTP2_CANCEL), Math.max(0, until - Date.now()) + 100);
  });
}

function save(): void {
  writeFileSync(out, JSON.stringify(fetches));
}

process.on('SIGTERM', () => {
  save();
  process.exit(0);
});

for (let i = 0; i < max && Date.now() < until; i++) {
  fetches.push(await (secure ? fetchOnceH2() : fetchOnce()));
  await new Promise((r) => setTimeout(r, gapMs));
}
save();
agent.destroy();
session?.close();

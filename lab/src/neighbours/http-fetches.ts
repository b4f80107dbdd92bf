/**
 * The HTTP neighbour, run inside the client namespace: fetches a fixed-size object over and over
 * and records each response time, from the request's first byte to the response's last byte.
 *
 *   http-fetches --url URL --until EPOCH_MS --gap-ms 500 --max 400 --out FILE [--header 'Name: value']
 *
 * Bounded by count and by time; one keep-alive connection, like a page's fetch.
 */
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { arg } from '../args.js';

const url = new URL(arg('url'));
const until = Number(arg('until'));
const gapMs = Number(arg('gap-ms', '500'));
const max = Number(arg('max', '400'));
const out = arg('out');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
/** One extra request header (through an edge: the congestion control the bench pins). */
const header = arg('header', '');
const colon = header.indexOf(':');
if (header && colon <= 0) throw new Error(`--header must be "Name: value", got ${header}`);
const headers: Record<string, string> = header ? { [header.slice(0, colon).trim()]: header.slice(colon + 1).trim() } : {};

interface Fetch {
  /** ms since the epoch when the request was written. */
  start: number;
  responseMs: number;
  bytes: number;
  status: number;
  /** True when the run ended before the response did: not counted as a response time. */
  cut: boolean;
}
const fetches: Fetch[] = [];

function fetchOnce(): Promise<Fetch> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const start = Date.now();
    let bytes = 0;
    const req = http.get(url, { agent, headers }, (res) => {
      res.on('data', (d: Buffer) => (bytes += d.length));
      res.on('end', () => resolve({ start, responseMs: performance.now() - t0, bytes, status: res.statusCode ?? 0, cut: false }));
      res.on('error', () => resolve({ start, responseMs: performance.now() - t0, bytes, status: res.statusCode ?? 0, cut: true }));
    });
    // The last fetch may outlive the run: abort it at the deadline and mark it cut.
    const timer = setTimeout(() => req.destroy(), Math.max(0, until - Date.now()) + 100);
    req.on('close', () => clearTimeout(timer));
    req.on('error', () => resolve({ start, responseMs: performance.now() - t0, bytes, status: 0, cut: true }));
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
  fetches.push(await fetchOnce());
  await new Promise((r) => setTimeout(r, gapMs));
}
save();
agent.destroy();

/** Real servers and real clients on loopback for the origin's tests. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { Agent, createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';
import { MEDIA_PATH } from '@sammy/test-content/media-paths';
import { silentLogger } from '../src/logger.js';
import { sammyPacing, type SammyPacingHandler } from '../src/middleware.js';
import type { SammyPacingOptions } from '../src/options.js';
import type { PacingMode } from '../src/engine/mechanism.js';
import { setMaxSegmentSize } from '../src/socket/socket-options.js';
import { expect } from 'vitest';

/** Ethernet's MSS: loopback's 64 KB segments would make the kernel pace in 64 KB lumps. */
export const ETHERNET_MSS = 1448;

/** The kernel does not pace a connection's first 10 segments: warm with more. */
export const WARM_UP_BYTES = 1024 * 1024;
/** Seconds of data per paced test transfer (at least; see MIN_PACED_BODY_BYTES). */
export const PACED_SECONDS = 1.2;
/** The issue's tolerance on a paced rate measured by the client. */
export const PACING_TOLERANCE = 0.1;

/**
 * The kernel paces whole TSO/GSO packets: each leaves at line rate and the next waits its length / pace.
 * On loopback they are 64 KB even with a 1448-byte MSS: since Linux 5.18 a flow whose min RTT is under
 * 512 µs (net.ipv4.tcp_tso_rtt_log = 9) gets full-size TSO packets whatever its pace. So the packet that
 * starts a response leaves at once, and a transfer measured from the request is up to one packet short.
 */
export const LOOPBACK_TSO_BYTES = 64 * 1024;
/** 16 such packets: the one that is not waited for is at most 1/15 (6.7%) of the measured time. */
export const MIN_PACED_BODY_BYTES = 16 * LOOPBACK_TSO_BYTES;

export function bodyBytesFor(kbps: number, seconds = PACED_SECONDS): number {
  return Math.max(MIN_PACED_BODY_BYTES, Math.round(kbpsToBytesPerSecond(kbps) * seconds));
}

/** A media dir of incompressible files: `warm.m4s` and `seg-<kbps>.m4s` sized for `seconds` at that rate. */
export function makeMediaDir(rates: readonly number[], seconds = PACED_SECONDS): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'sammy-origin-test-'));
  mkdirSync(join(dir, 'test'));
  writeFileSync(join(dir, 'test', 'warm.m4s'), randomBytes(WARM_UP_BYTES));
  for (const kbps of rates) writeFileSync(join(dir, 'test', `seg-${kbps}.m4s`), randomBytes(bodyBytesFor(kbps, seconds)));
  writeFileSync(join(dir, 'test', 'manifest.mpd'), '<?xml version="1.0"?><MPD/>');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Largest request head the test servers accept (as the reference server): room for a 64 KB CMCD header. */
export const DEFAULT_MAX_HEADER_BYTES = 96 * 1024;

/** A running test server: an Express app as the middleware's README shows it. */
export interface RunningOrigin {
  url: string;
  port: number;
  server: Server;
  pacing: SammyPacingHandler;
  close(): Promise<void>;
}

export interface TestOriginOptions extends Omit<SammyPacingOptions, 'mechanism'> {
  pacing?: PacingMode;
  /** Largest request head, bytes. Default 96 KB (room for oversized CMCD headers). */
  maxHeaderSize?: number;
  /** Address to listen on. Default 127.0.0.1 (the benchmark listens on a veth address in a namespace). */
  host?: string;
}

/**
 * `express()` + `sammyPacing()` + `express.static(mediaDir)` at /media on a free loopback port,
 * segments capped at Ethernet's MSS.
 */
export async function startTestOrigin(mediaDir: string, opts: TestOriginOptions = {}): Promise<RunningOrigin> {
  const { pacing: mechanism, maxHeaderSize, host = '127.0.0.1', ...pacingOptions } = opts;
  const pacing = sammyPacing({ logger: silentLogger, mechanism, ...pacingOptions });
  const app = express();
  app.use(pacing);
  app.use(MEDIA_PATH, express.static(mediaDir, { fallthrough: false, index: false }));
  const server = createServer({ maxHeaderSize: maxHeaderSize ?? DEFAULT_MAX_HEADER_BYTES }, app);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (fd !== undefined) setMaxSegmentSize(fd, ETHERNET_MSS);
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
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

export interface Fetched {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Body rate from sending the request to the last byte, kbps. */
  rateKbps: number;
  /** Client port: the same on two requests means the same connection. */
  localPort: number;
}

export interface FetchOptions {
  agent?: Agent;
  headers?: Record<string, string>;
  method?: string;
}

/** GET (or another method) with node:http, timing the body as it arrives. */
export function get(origin: Pick<RunningOrigin, 'url'>, path: string, opts: FetchOptions = {}): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const sentAt = performance.now();
    const req = request(
      `${origin.url}${path}`,
      { agent: opts.agent ?? false, headers: opts.headers, method: opts.method ?? 'GET' },
      (res) => {
        const localPort = res.socket.localPort ?? 0;
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const ms = performance.now() - sentAt;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            rateKbps: ms > 0 ? (body.length * 8) / ms : Infinity,
            localPort,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Below this share of its pace a transfer was paced in a wrong unit, not slowed by a starved reader. */
const WRONG_PACE_BELOW = 0.5;

/**
 * A paced transfer as its client measured it: never more than PACING_TOLERANCE fast (CPU load only
 * ever slows a transfer, so a fast one is a cap that did not hold), and not below half the pace (a
 * pace in a wrong unit is 8× off). How close to the pace it lands is `npm run bench:origin`'s figure
 * (README), not a test's: on a loaded machine a starved reader slows it by any amount.
 */
export function expectPacedAt(rateKbps: number, kbps: number, context?: string): void {
  const message = `achieved ${rateKbps.toFixed(0)} kbps for a pace of ${kbps}${context ? `; ${context}` : ''}`;
  expect(rateKbps, message).toBeLessThanOrEqual(kbps * (1 + PACING_TOLERANCE));
  expect(rateKbps, message).toBeGreaterThanOrEqual(kbps * WRONG_PACE_BELOW);
}

/** One kept-alive connection, warmed past the kernel's unpaced first segments. */
export async function warmAgent(origin: Pick<RunningOrigin, 'url'>): Promise<Agent> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  await get(origin, '/media/test/warm.m4s', { agent });
  return agent;
}

/** A CMCD query parameter carrying `rtp`, and the object type `ot` when given. */
export function cmcdQuery(rtpKbps: number | string, objectType?: string): string {
  return `CMCD=${encodeURIComponent(objectType === undefined ? `rtp=${rtpKbps}` : `ot=${objectType},rtp=${rtpKbps}`)}`;
}

export function relativeError(achieved: number, requested: number): number {
  return Math.abs(achieved / requested - 1);
}

/** Open connections of an origin's server (node:http's or node:http2's). */
export function serverConnections(origin: {
  server: { getConnections(cb: (err: Error | null, count: number) => void): unknown };
}): Promise<number> {
  return new Promise((resolve, reject) => origin.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}

/** Active handles by type (Timeout, TCPSocketWrap, ...). */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

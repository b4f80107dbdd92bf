/**
 * What the reference server publishes: records only on loopback (or when told), never with CORS;
 * CORS for cross-origin players through the `cors` package and sammyCorsOptions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, get as httpGet, type ClientRequest } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CMCD_HEADER_FIELDS } from '@svta/cml-cmcd';
import { CONGESTION_CONTROL_HEADER, parseServerTiming, RECORD_EVENTS_PATH, RECORDS_PATH, type DeliveryRecord } from 'sammy-pacing-protocol';
import {
  DeliveryRecordLog,
  DEFAULT_MAX_RECORD_SUBSCRIBERS,
  DEFAULT_MAX_RECORD_SUBSCRIBERS_PER_CLIENT,
  isLoopbackHost,
  silentLogger,
} from 'sammy-pacing-express';
import { createOriginApp, type RunningOrigin } from '../src/server.js';
import { cmcdQuery, get, startTestOrigin, waitFor } from './helpers.js';

const PLAYER_ORIGIN = 'https://player.example';
let media: string;
beforeAll(() => {
  media = mkdtempSync(join(tmpdir(), 'sammy-exposure-'));
  mkdirSync(join(media, 'v'));
  writeFileSync(join(media, 'v', 'seg-1.m4s'), Buffer.alloc(20_000, 1));
});
afterAll(() => rmSync(media, { recursive: true, force: true }));

/** Opens the records event stream from `localAddress` (kept in `open` until the test destroys it); its status. */
function subscribeFrom(origin: RunningOrigin, localAddress: string, open: ClientRequest[]): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const req = httpGet(`${origin.url}${RECORD_EVENTS_PATH}`, { localAddress }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    open.push(req);
  });
}
describe('isLoopbackHost', () => {
  it('knows loopback from everything else', () => {
    for (const host of ['127.0.0.1', '127.4.5.6', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '128.0.0.1', '::ffff:10.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});

describe('records on the reference server', () => {
  let origin: RunningOrigin;
  beforeAll(async () => {
    origin = await startTestOrigin(media); // 127.0.0.1: records on by default
  });
  afterAll(() => origin.close());

  it('on loopback: served, each response names its record, and the records carry no CORS', async () => {
    const res = await get(origin, `/media/v/seg-1.m4s?${cmcdQuery(3000)}`);
    const id = parseServerTiming(String(res.headers['server-timing'])).recordId;
    expect(id).toBeTypeOf('number');
    let record: DeliveryRecord | undefined;
    await waitFor(async () => {
      const list = await get(origin, RECORDS_PATH, { headers: { Origin: PLAYER_ORIGIN } });
      expect(list.headers['access-control-allow-origin']).toBeUndefined();
      record = (JSON.parse(list.body.toString()) as DeliveryRecord[]).find((r) => r.id === id);
      return record !== undefined;
    });
    expect(record).toMatchObject({ path: '/media/v/seg-1.m4s', requestedRtpKbps: 3000, bytes: 20_000 });
  });

  it("only under this server's own names: a page rebinding its DNS name to the server is refused", async () => {
    const port = new URL(origin.url).port;
    for (const host of ['attacker.example', `attacker.example:${port}`, `192.0.2.1:${port}`]) {
      for (const path of [RECORDS_PATH, RECORD_EVENTS_PATH]) {
        const res = await get(origin, path, { headers: { Host: host } });
        expect(res.status, `Host: ${JSON.stringify(host)} ${path}`).toBe(403);
        expect(res.body.toString()).not.toContain('"path"');
      }
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'LOCALHOST']) {
      expect((await get(origin, RECORDS_PATH, { headers: { Host: host } })).status, `Host: ${host}`).toBe(200);
    }
  });

  it("one cap on event streams for the origin, not one per listener (the CLI's HTTP and HTTPS share a log)", async () => {
    const log = new DeliveryRecordLog();
    const listeners = [await startTestOrigin(media, { records: log }), await startTestOrigin(media, { records: log })];
    const open: ClientRequest[] = [];
    let clients = 0;
    // Each from its own loopback address: one address may hold only DEFAULT_MAX_RECORD_SUBSCRIBERS_PER_CLIENT.
    const subscribe = (o: RunningOrigin) => subscribeFrom(o, `127.0.5.${++clients}`, open);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < DEFAULT_MAX_RECORD_SUBSCRIBERS; i++) statuses.push(await subscribe(listeners[i % 2]!));
      expect(statuses.every((s) => s === 200)).toBe(true);
      // Before: each listener had its own 16.
      for (const o of listeners) expect(await subscribe(o), o.url).toBe(503);
    } finally {
      for (const req of open) req.destroy();
      await Promise.all(listeners.map((o) => o.close()));
    }
  });

  it(`one client (address) holds at most ${DEFAULT_MAX_RECORD_SUBSCRIBERS_PER_CLIENT} event streams: 429 beyond, others still served`, async () => {
    const origin = await startTestOrigin(media);
    const open: ClientRequest[] = [];
    const subscribe = (localAddress: string) => subscribeFrom(origin, localAddress, open);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < DEFAULT_MAX_RECORD_SUBSCRIBERS_PER_CLIENT; i++) statuses.push(await subscribe('127.0.6.1'));
      expect(statuses).toEqual(Array.from({ length: DEFAULT_MAX_RECORD_SUBSCRIBERS_PER_CLIENT }, () => 200));
      // Before: the same client took all 16 slots.
      expect(await subscribe('127.0.6.1')).toBe(429);
      expect(await subscribe('127.0.6.2')).toBe(200);
    } finally {
      for (const req of open) req.destroy();
      await origin.close();
    }
  });

  it('off when told (serveRecords: false), and off by default when not listening on loopback', async () => {
    for (const opts of [{ serveRecords: false }, { host: '0.0.0.0' }, { host: '::' }]) {
      const { handler, pacing, records } = createOriginApp({
        mediaDir: media,
        siteDir: join(media, 'none'),
        logger: silentLogger,
        ...opts,
      });
      expect(records, JSON.stringify(opts)).toBeUndefined();
      // Listen on loopback whatever the option says: only the decision is under test.
      const server = createServer(handler);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        for (const path of [RECORDS_PATH, RECORD_EVENTS_PATH])
          expect((await get({ url }, path)).status, `${path} with ${JSON.stringify(opts)}`).toBe(404);
      } finally {
        pacing.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('on any host when told (serveRecords: true)', () => {
    expect(createOriginApp({ host: '0.0.0.0', serveRecords: true, mediaDir: media, logger: silentLogger }).records).toBeDefined();
  });
});

describe('the CLI', () => {
  const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

  /** Starts `sammy-origin` on a free loopback port; resolves with its URL from the "serving on" line. */
  function startCli(args: string[]): Promise<{ url: string; output: () => string; stop: () => Promise<void> }> {
    const child = spawn(process.execPath, [cli, '--port', '0', '--no-https', '--media-dir', media, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "serving on" line: ${output}`)), 15_000);
      child.stdout.on('data', () => {
        const m = /serving on (http:\/\/\S+?)\/?\s/.exec(output);
        if (!m) return;
        clearTimeout(timer);
        resolve({ url: m[1]!.replace('localhost', '127.0.0.1'), output: () => output, stop: () => (child.kill('SIGTERM'), exited) });
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
    });
  }

  it('--no-records turns records off on loopback, and says so', async () => {
    const run = await startCli(['--no-records']);
    try {
      expect((await get(run, RECORDS_PATH)).status).toBe(404);
      await waitFor(() => /records not published/.test(run.output()));
    } finally {
      await run.stop();
    }
  });

  it('serves records on loopback by default', async () => {
    const run = await startCli([]);
    try {
      expect((await get(run, RECORDS_PATH)).status).toBe(200);
    } finally {
      await run.stop();
    }
  });
});

describe('CORS for a player on another origin', () => {
  let origin: RunningOrigin;
  beforeAll(async () => {
    origin = await startTestOrigin(media);
  });
  afterAll(() => origin.close());

  it('answers the preflight for the CMCD headers and the congestion-control header', async () => {
    const asked = [...CMCD_HEADER_FIELDS, CONGESTION_CONTROL_HEADER].map((h) => h.toLowerCase());
    const res = await get(origin, '/media/v/seg-1.m4s', {
      method: 'OPTIONS',
      headers: { Origin: PLAYER_ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': asked.join(', ') },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const allowed = String(res.headers['access-control-allow-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(asked));
  });

  it('a cross-origin GET exposes Server-Timing, with the record id in it', async () => {
    const res = await get(origin, '/media/v/seg-1.m4s', { headers: { Origin: PLAYER_ORIGIN, 'CMCD-Status': 'rtp=2500' } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-expose-headers']).toLowerCase()).toContain('server-timing');
    expect(parseServerTiming(String(res.headers['server-timing']))).toMatchObject({ requestedRtpKbps: 2500, recordId: expect.any(Number) });
  });
});

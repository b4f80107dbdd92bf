/**
 * Prometheus metrics as an operator scrapes them: known requests over real sockets, really paced,
 * then the counters, histograms and gauges read back from the registry's exposition text.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIENT_RESET_BURST } from '../src/http2/client-resets.js';
import { silentLogger } from '../src/logger.js';
import { sammyMetricsEndpoint } from '../src/metrics/handler.js';
import { MIN_RATIO_BYTES } from '../src/metrics/metrics.js';
import { sammyPacing } from '../src/middleware.js';
import { bodyBytesFor, cmcdQuery, expectPacedAt, get, makeMediaDir, startTestOrigin, waitFor } from './helpers.js';
import { h2Connect, h2Get, startH2Origin } from './http2-helpers.js';
import { connectRaw, request } from './raw-http.js';
import { FLAG, FRAME, frame, getHeaders, rawH2, rstStream } from './raw-h2.js';

const media = makeMediaDir([8000, 40000]);
afterAll(() => media.remove());
const SEGMENT = '/media/test/seg-8000.m4s';
const SEGMENT_BYTES = bodyBytesFor(8000);
const PACED_KBPS = 2000;

/** One sample of the exposition text: `name{a="x",b="y"}`, or undefined when absent. */
async function sample(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const text = await registry.metrics();
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = m[2] ? m[2].split(',') : [];
    if (want.length === have.length && want.every((w) => have.includes(w))) return Number(m[3]);
  }
  return undefined;
}

describe('metrics over HTTP/1.1, kernel pacing', () => {
  it('count known requests: paced, unpaced by reason, clamped, the pace, the ratio, bytes, active connections, progress timeouts', async () => {
    const registry = new Registry();
    const origin = await startTestOrigin(media.dir, { pacing: 'kernel', metrics: { registry }, progressTimeoutMs: 1000 });
    try {
      // Three paced segments at once, on three connections (1.2 MB at 2 Mbps: about 5 s, so that a loaded machine
      // still has all three under way together): the gauges see them while they last.
      const paced = [1, 2, 3].map(() => get(origin, `${SEGMENT}?${cmcdQuery(PACED_KBPS)}`));
      await waitFor(async () => (await sample(registry, 'sammy_paced_connections_active')) === 3, 4000);
      expect(await sample(registry, 'sammy_paced_responses_active')).toBe(3);
      for (const res of await Promise.all(paced)) {
        expect(res.body.length).toBe(SEGMENT_BYTES);
        expectPacedAt(res.rateKbps, PACED_KBPS);
      }
      // Unpaced, each for its reason; clamped both ways.
      await get(origin, '/media/test/manifest.mpd');
      await get(origin, `/media/test/manifest.mpd?${cmcdQuery('abc')}`);
      await get(origin, `/media/test/manifest.mpd?${cmcdQuery(-5)}`);
      await get(origin, '/media/test/manifest.mpd', { headers: { 'CMCD-Status': `rtp=${'9'.repeat(5000)}` } });
      await get(origin, `/media/test/manifest.mpd?${cmcdQuery(1)}`);
      await get(origin, `/media/test/manifest.mpd?${cmcdQuery(5_000_000)}`);
      // A reader that stops: reset after the progress timeout.
      const raw = await connectRaw(origin.port, { receiveBuffer: 16 * 1024 });
      raw.socket.pause();
      raw.socket.write(request(`/media/test/seg-40000.m4s?${cmcdQuery(40000)}`));
      await waitFor(async () => (await sample(registry, 'sammy_progress_timeouts_total', { http_version: '1.1' })) === 1, 8000);
      raw.socket.destroy();
      await waitFor(() => origin.pacing.activeResponses === 0, 5000);

      const responses = (mechanism: string, end_reason: string) =>
        sample(registry, 'sammy_responses_total', { mechanism, end_reason, http_version: '1.1' });
      // 3 segments, the floor-clamped and the ceiling-clamped manifests
      expect(await responses('kernel', 'delivered')).toBe(5);
      expect(await responses('none', 'delivered')).toBe(4);
      expect(await responses('kernel', 'stalled')).toBe(1);
      for (const [reason, n] of [
        ['rtp_absent', 1],
        ['rtp_not_a_number', 1],
        ['rtp_not_positive', 1],
        ['cmcd_too_large', 1],
      ] as const) {
        expect(await sample(registry, 'sammy_unpaced_responses_total', { reason }), reason).toBe(n);
      }
      expect(await sample(registry, 'sammy_rtp_ignored_total', { reason: 'rtp_not_a_number' })).toBe(1);
      expect(await sample(registry, 'sammy_rtp_ignored_total', { reason: 'rtp_absent' })).toBeUndefined();
      expect(await sample(registry, 'sammy_rtp_clamped_total', { clamp: 'below_floor' })).toBe(1);
      expect(await sample(registry, 'sammy_rtp_clamped_total', { clamp: 'above_ceiling' })).toBe(1);
      // Requested: 3 × 2000, 1, 5 000 000, 40 000 kbps; applied: the same but clamped (1024, 1 000 000), in bytes/s.
      expect(await sample(registry, 'sammy_requested_rtp_bytes_per_second_count')).toBe(6);
      expect(await sample(registry, 'sammy_requested_rtp_bytes_per_second_sum')).toBe((3 * PACED_KBPS + 1 + 5_000_000 + 40000) * 125);
      expect(await sample(registry, 'sammy_applied_pace_bytes_per_second_sum', { mechanism: 'kernel' })).toBe(
        (3 * PACED_KBPS + 1024 + 1_000_000 + 40000) * 125,
      );
      // Only the three segments are long enough for the ratio; none was more than 10 % fast.
      expect(SEGMENT_BYTES).toBeGreaterThanOrEqual(MIN_RATIO_BYTES);
      expect(await sample(registry, 'sammy_delivery_pace_ratio_count', { mechanism: 'kernel' })).toBe(3);
      expect(await sample(registry, 'sammy_delivery_pace_ratio_bucket', { mechanism: 'kernel', le: '1.1' })).toBe(3);
      expect(await sample(registry, 'sammy_response_bytes_total', { mechanism: 'kernel' })).toBeGreaterThanOrEqual(3 * SEGMENT_BYTES);
      expect(await sample(registry, 'sammy_paced_connections_active')).toBe(0);
      expect(await sample(registry, 'sammy_paced_responses_active')).toBe(0);
    } finally {
      await origin.close();
    }
  });
});

describe('metrics over HTTP/2', () => {
  it('count client resets, the GOAWAY sent to a rapid-reset client, a GOAWAY received, a session paced', async () => {
    const registry = new Registry();
    const origin = await startH2Origin(media.dir, { pacing: 'kernel', metrics: { registry } });
    try {
      const session = await h2Connect(origin);
      const res = await h2Get(session, `${SEGMENT}?${cmcdQuery(8000, 'v')}`);
      expect(res.bytes).toBe(SEGMENT_BYTES);
      session.goaway(0); // GOAWAY(NO_ERROR) from the client, as a browser closing a tab's connection
      session.close();
      const hostile = await rawH2({ port: origin.port });
      const chunks: Buffer[] = [];
      for (let i = 0; i < 2000; i++) {
        const id = hostile.nextStreamId();
        chunks.push(frame(FRAME.HEADERS, FLAG.END_STREAM | FLAG.END_HEADERS, id, getHeaders('/media/test/manifest.mpd')), rstStream(id));
      }
      hostile.write(...chunks);
      await waitFor(() => hostile.isClosed(), 10_000);
      hostile.destroy();
      await waitFor(() => origin.pacing.activeResponses === 0, 5000);
      await waitFor(async () => (await sample(registry, 'sammy_http2_goaways_total', { direction: 'received', code: '0' })) === 1, 5000);
      expect(await sample(registry, 'sammy_http2_goaways_total', { direction: 'sent', code: '11' })).toBe(1);
      expect(await sample(registry, 'sammy_http2_client_resets_total')).toBeGreaterThan(CLIENT_RESET_BURST);
      expect(await sample(registry, 'sammy_responses_total', { mechanism: 'kernel', end_reason: 'delivered', http_version: '2' })).toBe(1);
      expect(await sample(registry, 'sammy_paced_connections_active')).toBe(0);
    } finally {
      await origin.close();
    }
  });
});

describe('the /metrics endpoint', () => {
  it('serves the exposition text under loopback names only, and passes other paths on', async () => {
    const registry = new Registry();
    const pacing = sammyPacing({ logger: silentLogger, metrics: { registry } });
    const app = express();
    app.use(sammyMetricsEndpoint(pacing.metrics!));
    app.use(pacing);
    app.use('/media', express.static(join(media.dir, 'test')));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await get({ url }, '/media/manifest.mpd');
      const ok = await get({ url }, '/metrics');
      expect(ok.status).toBe(200);
      expect(ok.headers['content-type']).toBe(registry.contentType);
      expect(ok.body.toString()).toContain('sammy_unpaced_responses_total{reason="rtp_absent"} 1');
      const rebound = await get({ url }, '/metrics', { headers: { Host: 'evil.example' } });
      expect(rebound.status).toBe(403);
      expect(rebound.body.toString()).not.toContain('sammy_');
      // The scrapes themselves are neither paced nor counted.
      expect(await sample(registry, 'sammy_unpaced_responses_total', { reason: 'rtp_absent' })).toBe(1);
    } finally {
      pacing.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('two middlewares (an HTTP and an HTTPS listener) share one registry and count into the same metrics', async () => {
    const registry = new Registry();
    const one = sammyPacing({ logger: silentLogger, metrics: { registry } });
    const two = sammyPacing({ logger: silentLogger, metrics: { registry } });
    const servers = [one, two].map((pacing) => {
      const app = express();
      app.use(pacing);
      app.use('/media', express.static(join(media.dir, 'test')));
      return createServer(app);
    });
    try {
      for (const server of servers) {
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        await get({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, '/media/manifest.mpd');
      }
      expect(await sample(registry, 'sammy_unpaced_responses_total', { reason: 'rtp_absent' })).toBe(2);
    } finally {
      for (const pacing of [one, two]) pacing.close();
      for (const server of servers) (server.closeAllConnections(), server.close());
    }
  });

  it('without prom-client installed, enabling metrics throws saying what to install; without metrics nothing needs it', () => {
    // The built package in a folder of its own whose node_modules has its dependencies but not prom-client.
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    if (!existsSync(join(root, 'origin/middleware/dist/index.js')))
      throw new Error('build the package first: npm run build -w sammy-pacing-express');
    const dir = mkdtempSync(join(tmpdir(), 'sammy-no-prom-'));
    try {
      const pkg = join(dir, 'node_modules', 'sammy-pacing-express');
      mkdirSync(pkg, { recursive: true });
      cpSync(join(root, 'origin/middleware/dist'), join(pkg, 'dist'), { recursive: true });
      cpSync(join(root, 'origin/middleware/package.json'), join(pkg, 'package.json'));
      for (const dep of ['sammy-pacing-protocol', '@svta', 'koffi']) {
        mkdirSync(dirname(join(dir, 'node_modules', dep)), { recursive: true });
        symlinkSync(join(root, 'node_modules', dep), join(dir, 'node_modules', dep));
      }
      const script = join(dir, 'probe.mjs');
      writeFileSync(
        script,
        `import { sammyPacing, silentLogger } from 'sammy-pacing-express';
sammyPacing({ logger: silentLogger }).close();
try { sammyPacing({ logger: silentLogger, metrics: true }); console.log('no error'); } catch (err) { console.log(err.message); }`,
      );
      const out = execFileSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
      expect(out.trim()).toBe('sammyPacing: metrics need the prom-client package (an optional peer dependency): npm install prom-client');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

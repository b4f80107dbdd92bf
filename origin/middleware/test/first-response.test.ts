/**
 * The first response on a new connection, with loopback's own 64 KB MSS (a plain `listen()`, as the
 * reference server): Linux leaves a connection's first 10 segments unpaced, 640 KB here, so the
 * middleware spaces those in userspace and hands over to the kernel. The body must arrive whole, at
 * its rtp, and be recorded as kernel-paced and delivered.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import express from 'express';
import { afterAll, expect, it } from 'vitest';
import { parseServerTiming } from 'sammy-pacing-protocol';
import { MEDIA_PATH } from '@sammy/test-content/media-paths';
import { silentLogger } from '../src/logger.js';
import { sammyPacing } from '../src/middleware.js';
import { readTcpInfo, socketFd } from '../src/socket/socket-options.js';
import { cmcdQuery, expectPacedAt, get, makeMediaDir, waitFor } from './helpers.js';

const RTP_KBPS = 8000;
const BODY = randomBytes(1_500_000);
const media = makeMediaDir([]);
writeFileSync(join(media.dir, 'test', 'first.m4s'), BODY);
afterAll(() => media.remove());

it('a new connection with 64 KB segments: the whole body at its rtp, from the request', async () => {
  const pacing = sammyPacing({ logger: silentLogger, mechanism: 'kernel' });
  const app = express();
  app.use(pacing);
  app.use(MEDIA_PATH, express.static(media.dir));
  const server = createServer(app);
  let mss: number | undefined;
  server.on('connection', (socket) => socket.once('data', () => (mss ??= readTcpInfo(socketFd(socket)!).sndMss)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const origin = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    const res = await get(origin, `/media/test/first.m4s?${cmcdQuery(RTP_KBPS)}`);
    expect(mss, 'loopback MSS (bounded to half the first window at first)').toBeGreaterThan(16_000);
    expect(res.body.equals(BODY)).toBe(true);
    // Without the hand-off ~380 KB leave at once: 25% fast on this body.
    expectPacedAt(res.rateKbps, RTP_KBPS);
    const id = parseServerTiming(String(res.headers['server-timing'])).recordId;
    await waitFor(() => pacing.activeResponses === 0);
    expect(pacing.records.list().find((r) => r.id === id)).toMatchObject({
      mechanism: 'kernel',
      endReason: 'delivered',
      bytes: BODY.length,
    });
  } finally {
    pacing.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

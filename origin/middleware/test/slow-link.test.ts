/**
 * A client whose link is slower than its pace (here: it reads at a quarter of it, through a small
 * receive window) gets every byte on a connection that stays reusable, and the record's rate is the
 * client's. Node arms its keep-alive timer at `finish`, while seconds of paced data still sit in the
 * kernel: the middleware must hold it until the last byte is acknowledged.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';
import { cmcdQuery, makeMediaDir, PACING_TOLERANCE, relativeError, startTestOrigin, waitFor } from './helpers.js';
import { connectRaw, request, throttle } from './raw-http.js';

const PACE_KBPS = 32_000;
const CLIENT_KBPS = PACE_KBPS / 4;
const BODY_BYTES = Math.round(kbpsToBytesPerSecond(CLIENT_KBPS) * 2.5);
/** Short, so that a timer armed at `finish` would fire long before the client has everything. */
const KEEP_ALIVE_MS = 300;

const media = makeMediaDir([]);
writeFileSync(join(media.dir, 'test', 'slow.m4s'), randomBytes(BODY_BYTES));
afterAll(() => media.remove());

describe.each(['kernel', 'userspace'] as const)('a client reading at a quarter of its pace, %s pacing', (mechanism) => {
  it('gets every byte, the connection is reused, the record has the client rate, and keep-alive still ends it', async () => {
    const origin = await startTestOrigin(media.dir, { pacing: mechanism });
    origin.server.keepAliveTimeout = KEEP_ALIVE_MS;
    try {
      const raw = await connectRaw(origin.port, { receiveBuffer: 16 * 1024 });
      throttle(raw, kbpsToBytesPerSecond(CLIENT_KBPS));
      const sentAt = performance.now();
      raw.socket.write(request(`/media/test/slow.m4s?${cmcdQuery(PACE_KBPS)}`));
      const [slow] = await raw.complete(1);
      const clientKbps = (slow!.received * 8) / (slow!.lastBodyAt! - sentAt);
      expect(slow!.received).toBe(BODY_BYTES);
      expect(relativeError(clientKbps, CLIENT_KBPS), `client read at ${clientKbps.toFixed(0)} kbps`).toBeLessThanOrEqual(PACING_TOLERANCE);

      raw.socket.write(request('/media/test/manifest.mpd'));
      const [, second] = await raw.complete(2);
      expect(second!.status).toBe(200);

      await waitFor(() => origin.pacing.activeResponses === 0);
      const record = origin.pacing.records.list().find((r) => r.id === slow!.recordId);
      expect(record).toMatchObject({
        bytes: BODY_BYTES,
        bytesExact: true,
        endReason: 'delivered',
        aborted: false,
        appliedPaceKbps: PACE_KBPS,
        mechanism,
      });
      expect(
        relativeError(record!.achievedKbps ?? NaN, clientKbps),
        `record ${(record!.achievedKbps ?? NaN).toFixed(0)} kbps, client ${clientKbps.toFixed(0)} kbps`,
      ).toBeLessThanOrEqual(PACING_TOLERANCE);

      // Idle now: Node's keep-alive (its timeout + 1 s) closes the connection as usual.
      const idleFrom = performance.now();
      await waitFor(() => raw.closed, KEEP_ALIVE_MS + 4000);
      expect(performance.now() - idleFrom).toBeGreaterThanOrEqual(KEEP_ALIVE_MS);
    } finally {
      await origin.close();
    }
  });
});

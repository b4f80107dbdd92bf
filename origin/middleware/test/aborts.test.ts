import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import type { RunningOrigin } from './helpers.js';
import { activeResources, cmcdQuery, makeMediaDir, serverConnections, startTestOrigin, waitFor } from './helpers.js';

const media = makeMediaDir([8000]);
afterAll(() => media.remove());

/** Starts a paced download and destroys the client socket after the first bytes. */
function abortMidTransfer(origin: RunningOrigin): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin.url}/media/test/seg-8000.m4s?${cmcdQuery(2000)}`, { agent: false }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', () => {});
    req.setTimeout(5000, () => reject(new Error('no data')));
    req.end();
  });
}

describe.each(['kernel', 'userspace'] as const)('client abort with %s pacing', (mechanism) => {
  it('leaves no timer, listener, socket or pending record behind', async () => {
    const origin = await startTestOrigin(media.dir, { pacing: mechanism });
    const before = activeResources();
    await abortMidTransfer(origin);
    await waitFor(async () => (await serverConnections(origin)) === 0 && origin.pacing.activeResponses === 0);
    const after = activeResources();
    expect(after.Timeout ?? 0).toBeLessThanOrEqual(before.Timeout ?? 0);
    expect(after.TCPSocketWrap ?? 0).toBeLessThanOrEqual(before.TCPSocketWrap ?? 0);
    const [record] = origin.pacing.records.list();
    expect(record).toMatchObject({ aborted: true, mechanism, path: '/media/test/seg-8000.m4s' });
    expect(record!.bytes).toBeLessThan(1_200_000);
    expect(origin.server.listenerCount('request')).toBe(1);
    await origin.close();
  });
});

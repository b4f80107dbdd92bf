/**
 * HTTP/1.1 pipelining: requests written at once on one socket, each with its own rtp (one with none).
 * Node answers them in order on the same socket; each must be paced at its own rate, never at a
 * neighbour's, and its record must agree with what the client measured.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseServerTiming } from 'sammy-pacing-protocol';
import {
  bodyBytesFor,
  cmcdQuery,
  expectPacedAt,
  makeMediaDir,
  PACING_TOLERANCE,
  relativeError,
  startTestOrigin,
  waitFor,
} from './helpers.js';
import { connectRaw, request } from './raw-http.js';

const media = makeMediaDir([2000, 20000]);
afterAll(() => media.remove());

const PIPELINE = [
  { path: '/media/test/seg-2000.m4s', rtp: 2000 },
  { path: '/media/test/seg-20000.m4s', rtp: undefined },
  { path: '/media/test/seg-20000.m4s', rtp: 20000 },
] as const;

describe.each(['kernel', 'userspace'] as const)('pipelined requests with %s pacing', (mechanism) => {
  it('each response arrives at its own rtp, the unpaced one far faster, and the records agree', async () => {
    const origin = await startTestOrigin(media.dir, { pacing: mechanism });
    try {
      const raw = await connectRaw(origin.port);
      // Past the kernel's unpaced first segments, so that the first paced response is measurable.
      raw.socket.write(request('/media/test/warm.m4s'));
      await raw.complete(1);

      const sentAt = performance.now();
      raw.socket.write(PIPELINE.map((p) => request(p.rtp === undefined ? p.path : `${p.path}?${cmcdQuery(p.rtp)}`)).join(''));
      const responses = (await raw.complete(1 + PIPELINE.length)).slice(1);
      raw.socket.destroy();

      // Each response's time runs from the previous one's last byte (the first one's from the request).
      const rates = responses.map((r, i) => {
        const from = i === 0 ? sentAt : responses[i - 1]!.lastBodyAt!;
        return (r.received * 8) / (r.lastBodyAt! - from);
      });
      const summary = PIPELINE.map((p, i) => `${p.rtp ?? 'none'}: ${rates[i]!.toFixed(0)} kbps`).join(', ');
      PIPELINE.forEach((p, i) => {
        const r = responses[i]!;
        expect(r.status).toBe(200);
        expect(r.received).toBe(bodyBytesFor(p.rtp ?? 20000));
        const report = parseServerTiming(r.headers['server-timing'] ?? '');
        expect(report.mechanism, summary).toBe(p.rtp === undefined ? 'none' : mechanism);
        if (p.rtp !== undefined) expectPacedAt(rates[i]!, p.rtp, summary);
      });
      expect(rates[1], summary).toBeGreaterThan(20000 * 5);

      await waitFor(() => origin.pacing.activeResponses === 0);
      const records = origin.pacing.records.list();
      PIPELINE.forEach((p, i) => {
        const r = responses[i]!;
        const record = records.find((rec) => rec.id === r.recordId);
        expect(record, `record ${r.recordId}`).toMatchObject({
          path: p.path,
          bytes: r.received,
          bytesExact: true,
          endReason: 'delivered',
          aborted: false,
          mechanism: p.rtp === undefined ? 'none' : mechanism,
        });
        if (p.rtp !== undefined)
          expect(
            relativeError(record!.achievedKbps ?? NaN, rates[i]!),
            `record ${(record!.achievedKbps ?? NaN).toFixed(0)} kbps; ${summary}`,
          ).toBeLessThanOrEqual(PACING_TOLERANCE);
      });
    } finally {
      await origin.close();
    }
  });
});

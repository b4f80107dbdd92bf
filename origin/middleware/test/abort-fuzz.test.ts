/**
 * Clients that abort at random points (seeded), paced and unpaced, kernel and userspace: every record
 * says `aborted`, never counts more body bytes than reached the client's kernel, and the server keeps
 * serving. A small client receive window keeps the bytes in flight few, so that an abort is an abort.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyBytesFor, cmcdQuery, get, makeMediaDir, serverConnections, startTestOrigin, waitFor, type RunningOrigin } from './helpers.js';
import { connectRaw, request, seededRandom, type RawConnection } from './raw-http.js';

const SEED = 0x5a11;
const ABORTS_PER_CASE = 60;
const CONCURRENT = 20;
const RATE_KBPS = 40000;
const BODY_BYTES = bodyBytesFor(RATE_KBPS);
const PATH = `/media/test/seg-${RATE_KBPS}.m4s`;
/**
 * Bytes the client's kernel may take between reading its TCP_INFO and the close (same tick, but the
 * kernel delivers in softirq meanwhile): one loopback TSO packet.
 */
const RACE_SLACK_BYTES = 64 * 1024;

const media = makeMediaDir([RATE_KBPS]);
afterAll(() => media.remove());

interface Outcome {
  recordId?: number;
  /** Body bytes the client's kernel had received when it aborted. */
  kernelBody: number;
}

function abortOnce(port: number, random: () => number, paced: boolean): Promise<Outcome> {
  return connectRaw(port, { receiveBuffer: 32 * 1024 }).then(
    (raw) =>
      new Promise<Outcome>((resolve) => {
        const rtp = paced ? RATE_KBPS + Math.floor(random() * 60) * 1000 : undefined;
        const beforeHead = random() < 0.15;
        const at = Math.floor(random() * 0.9 * BODY_BYTES);
        const reset = random() < 0.5;
        const abort = (c: RawConnection) => {
          c.socket.pause();
          const head = c.responses[0];
          const received = c.kernelReceived();
          const kernelBody = head ? Math.max(0, received - head.headBytes) : 0;
          if (reset) c.socket.resetAndDestroy();
          else c.socket.destroy();
          c.socket.once('close', () => resolve({ recordId: head?.recordId, kernelBody }));
        };
        raw.socket.write(request(rtp === undefined ? PATH : `${PATH}?${cmcdQuery(rtp)}`));
        if (beforeHead) setTimeout(() => abort(raw), random() * 5);
        else
          raw.onBody = (r, c) => {
            if (r.received < at) return;
            raw.onBody = undefined;
            abort(c);
          };
      }),
  );
}

describe.each(['kernel', 'userspace'] as const)('abort fuzz, %s pacing', (mechanism) => {
  let origin: RunningOrigin;
  let requests = 0;
  beforeAll(async () => {
    origin = await startTestOrigin(media.dir, { pacing: mechanism });
    origin.server.on('request', () => requests++);
  });
  afterAll(() => origin.close());

  it.each([
    ['paced', true],
    ['unpaced', false],
  ] as const)(
    `${ABORTS_PER_CASE} %s responses aborted at random points: all recorded aborted, none over-counted`,
    async (_name, paced) => {
      const random = seededRandom(SEED + (paced ? 1 : 0) + (mechanism === 'kernel' ? 0 : 2));
      const firstRequest = requests;
      const known = new Set(origin.pacing.records.list().map((r) => r.id));
      const outcomes: Outcome[] = [];
      for (let done = 0; done < ABORTS_PER_CASE; done += CONCURRENT) {
        const batch = Array.from({ length: Math.min(CONCURRENT, ABORTS_PER_CASE - done) }, () => abortOnce(origin.port, random, paced));
        outcomes.push(...(await Promise.all(batch)));
      }
      await waitFor(async () => origin.pacing.activeResponses === 0 && (await serverConnections(origin)) === 0, 15_000);

      const records = origin.pacing.records.list().filter((r) => !known.has(r.id));
      expect(records.length).toBe(requests - firstRequest);
      const byId = new Map(outcomes.filter((o) => o.recordId !== undefined).map((o) => [o.recordId!, o]));
      let worstExcess = -Infinity;
      const under: number[] = [];
      let exact = 0;
      for (const record of records) {
        expect(record, `record ${record.id}`).toMatchObject({
          aborted: true,
          endReason: 'closed',
          path: PATH,
          mechanism: paced ? mechanism : 'none',
        });
        expect(record.bytes).toBeLessThanOrEqual(record.bytesWritten);
        // A record whose client saw no head belongs to an abort with no body received.
        const kernelBody = byId.get(record.id)?.kernelBody ?? 0;
        worstExcess = Math.max(worstExcess, record.bytes - kernelBody);
        under.push(kernelBody - record.bytes);
        if (record.bytesExact) exact++;
        expect(record.bytes, `record ${record.id}: client kernel had ${kernelBody} body bytes`).toBeLessThanOrEqual(
          kernelBody + RACE_SLACK_BYTES,
        );
      }
      console.info(
        `${mechanism} ${paced ? 'paced' : 'unpaced'}: ${records.length} aborted records, bytes vs the client kernel's: worst over ${worstExcess}, worst under ${Math.max(...under)} (received, not yet acknowledged); exact ${exact}`,
      );

      const after = await get(origin, '/media/test/manifest.mpd');
      expect(after.status).toBe(200);
    },
    60_000,
  );
});

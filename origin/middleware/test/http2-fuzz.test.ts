/**
 * HTTP/2 clients that misbehave at random (seeded), on a real TLS origin: sessions with several
 * streams at once — paced (query and header mode), unpaced, absurd and malformed rtp, missing
 * files — whose streams are read whole, reset at a random point or before any response, or left
 * unread for a while; and sessions that are destroyed mid-transfer or closed (GOAWAY) with streams
 * open. After it, for every request the server saw: exactly one record, ended, never counting more
 * than was written, `delivered` with every byte for each stream the client read whole; nothing left
 * tracked, no timer or socket left; and a fresh session is served and paced as asked.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientHttp2Session } from 'node:http2';
import { afterAll, describe, expect, it } from 'vitest';
import { DELIVERY_END_REASONS, parseServerTiming } from 'sammy-pacing-protocol';
import { seededRandom } from '@sammy/test-support';
import { activeResources, bodyBytesFor, cmcdQuery, makeMediaDir, PACING_TOLERANCE, serverConnections, waitFor } from './helpers.js';
import { h2Connect, h2Get, startH2Origin, type H2Origin } from './http2-helpers.js';

const SEED = 0x4832;
const SESSIONS = 10;
const STREAMS_PER_SESSION = { min: 2, max: 6 };
/**
 * How long a session that stays open outlives its last stream. A client that goes the moment its
 * last byte arrives may leave the server unsure that byte arrived: the end offset it waits for can
 * lie past the stream's last byte (other streams' frames after it), so such a record may say
 * `closed` with a lower bound; over a session that stays, it must say `delivered`.
 */
const LINGER_MS = 500;

const media = makeMediaDir([8000]);
afterAll(() => media.remove());
/** A body of 6 MB: with Node's 64 KB windows or Chromium's 6 MB, mid-transfer for a while. */
const BIG = '/media/test/big.m4s';
const BIG_BYTES = 6_000_000;
writeFileSync(join(media.dir, 'test', 'big.m4s'), randomBytes(BIG_BYTES));
const FILES = [
  { path: '/media/test/seg-8000.m4s', bytes: bodyBytesFor(8000) },
  { path: BIG, bytes: BIG_BYTES },
  { path: '/media/test/manifest.mpd', bytes: undefined },
  { path: '/media/test/missing.m4s', bytes: undefined },
] as const;

type Action = 'read' | 'reset' | 'reset-at-once' | 'pause';
type Fate = 'stay' | 'destroy' | 'goaway';

interface StreamOutcome {
  path: string;
  /** What became of its session once its streams were started. */
  fate: Fate;
  action: Action;
  status?: number;
  recordId?: number;
  /** Body bytes the client read, and whether it read to the end (not cut by its own reset or destroy). */
  got: number;
  ended: boolean;
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** What a request carries: a CMCD query, a CMCD header, nothing, or nonsense. */
function requestFor(random: () => number, path: string): { path: string; headers: Record<string, string> } {
  // Paces from 8 to 60 Mbps: a big body at the lowest still takes ~6 s, the case's time budget.
  const rtp = 8000 + Math.floor(random() * 53) * 1000;
  const ot = path.endsWith('.mpd') ? 'm' : 'v';
  switch (pick(random, ['query', 'query', 'header', 'none', 'absurd', 'malformed'] as const)) {
    case 'query':
      return { path: `${path}?${cmcdQuery(rtp, ot)}`, headers: {} };
    case 'header':
      return { path, headers: { 'cmcd-object': `ot=${ot}`, 'cmcd-status': `rtp=${rtp}` } };
    case 'none':
      return { path, headers: {} };
    case 'absurd':
      return { path: `${path}?${cmcdQuery('1e12', ot)}`, headers: {} };
    case 'malformed':
      return { path: `${path}?CMCD=${encodeURIComponent(pick(random, ['rtp=-5', 'rtp=abc', 'rtp', '"', 'x'.repeat(3000)]))}`, headers: {} };
  }
}

/** One stream, driven by `action`; resolves once it is over on the client's side, however it ended. */
function runStream(session: ClientHttp2Session, fate: Fate, random: () => number): Promise<StreamOutcome> {
  const file = pick(random, FILES);
  const { path, headers } = requestFor(random, file.path);
  const action = pick(random, ['read', 'read', 'read', 'reset', 'reset', 'reset-at-once', 'pause'] as const satisfies readonly Action[]);
  const resetAt = Math.floor(random() * 0.9 * (file.bytes ?? 1000));
  const pauseMs = 200 + random() * 1300;
  const outcome: StreamOutcome = { path: file.path, fate, action, got: 0, ended: false };
  return new Promise((resolve) => {
    if (session.destroyed || session.closed) return resolve(outcome);
    const stream = session.request({ ':path': path, ...headers });
    stream.on('response', (h) => {
      outcome.status = Number(h[':status']);
      outcome.recordId = parseServerTiming(String(h['server-timing'] ?? '')).recordId;
    });
    let paused = false;
    stream.on('data', (d: Buffer) => {
      outcome.got += d.length;
      if (action === 'reset' && outcome.got > resetAt) stream.close(0x8);
      if (action === 'pause' && !paused && outcome.got > resetAt) {
        paused = true;
        stream.pause();
        setTimeout(() => stream.resume(), pauseMs);
      }
    });
    // Node ends a stream's readable side on a reset and when its session is destroyed too.
    stream.on('end', () => (outcome.ended = !stream.rstCode && !session.destroyed));
    stream.on('error', () => {});
    stream.on('close', () => resolve(outcome));
    stream.end();
    if (action === 'reset-at-once') setImmediate(() => stream.close(0x8));
  });
}

async function runSession(origin: H2Origin, random: () => number): Promise<StreamOutcome[]> {
  const session = await h2Connect(origin, { nodeWindows: random() < 0.5 });
  session.on('error', () => {});
  const fate = pick(random, ['stay', 'stay', 'destroy', 'goaway'] as const satisfies readonly Fate[]);
  const fateAt = 100 + random() * 1500;
  const count = STREAMS_PER_SESSION.min + Math.floor(random() * (STREAMS_PER_SESSION.max - STREAMS_PER_SESSION.min + 1));
  const starts = Array.from({ length: count }, () => random() * 800);
  const fated = sleep(fateAt).then(() => {
    if (fate === 'destroy') session.destroy();
    if (fate === 'goaway') session.close();
  });
  const outcomes = await Promise.all(starts.map(async (at) => (await sleep(at), runStream(session, fate, random))));
  await fated;
  // A session that stays open, as a browser's does, lets the server see its last acknowledgements.
  if (fate === 'stay') await sleep(LINGER_MS);
  if (!session.destroyed) session.destroy();
  return outcomes;
}

describe.each(['kernel', 'userspace'] as const)('HTTP/2 fuzz, %s pacing', (mechanism) => {
  it(`${SESSIONS} sessions of random streams, resets, pauses, destroys and GOAWAYs: every record ended and true, nothing left behind`, async () => {
    const origin = await startH2Origin(media.dir, { pacing: mechanism });
    try {
      let requests = 0;
      origin.server.on('request', () => requests++);
      // Warm the process's TLS and http2 machinery first: their first use leaves handles for good.
      const warm = await h2Connect(origin);
      await h2Get(warm, '/media/test/warm.m4s');
      warm.destroy();
      await waitFor(() => origin.pacing.activeResponses === 0, 10_000);
      const firstRequest = requests;
      const known = new Set(origin.pacing.records.list().map((r) => r.id));
      const before = activeResources();

      const random = seededRandom(SEED + (mechanism === 'kernel' ? 0 : 1));
      const sessions = Array.from({ length: SESSIONS }, () => seededRandom(Math.floor(random() * 2 ** 32)));
      const outcomes = (await Promise.all(sessions.map((r) => runSession(origin, r)))).flat();

      await waitFor(() => origin.pacing.activeResponses === 0, 20_000);
      await waitFor(async () => (await serverConnections(origin)) === 0, 10_000);
      const records = origin.pacing.records.list().filter((r) => !known.has(r.id));
      expect(records.length, 'one record per request the server saw').toBe(requests - firstRequest);
      expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
      for (const r of records) {
        expect(DELIVERY_END_REASONS, `end reason of record ${r.id}`).toContain(r.endReason);
        expect(r.bytes, `record ${r.id} (${r.path}, ${r.endReason})`).toBeLessThanOrEqual(r.bytesWritten);
        expect(r.aborted).toBe(r.endReason !== 'delivered' && r.endReason !== 'sent');
        if (r.endReason === 'delivered') expect(r.bytes).toBe(r.bytesWritten);
        expect(r.httpVersion).toBe('2');
      }
      // Each stream the client read to its end got every byte; on a session that stayed open, its
      // record says delivered, every byte; otherwise delivered, or closed with a lower bound.
      const byId = new Map(records.map((r) => [r.id, r]));
      const whole = outcomes.filter((o) => o.ended && o.status === 200 && o.recordId !== undefined);
      expect(whole.filter((o) => o.fate === 'stay').length, 'streams read whole on sessions that stayed').toBeGreaterThan(5);
      for (const o of whole) {
        const file = FILES.find((f) => f.path === o.path)!;
        if (file.bytes !== undefined) expect(o.got, `bytes read of ${o.path}`).toBe(file.bytes);
        const record = byId.get(o.recordId!);
        expect(record, `record ${o.recordId} of ${o.path}`).toBeDefined();
        expect(record!.bytesWritten).toBe(o.got);
        if (o.fate === 'stay')
          expect(record, `record ${o.recordId} of ${o.path}, read whole`).toMatchObject({
            endReason: 'delivered',
            aborted: false,
            bytes: o.got,
          });
        else
          expect(['delivered', 'closed'], `record ${o.recordId} of ${o.path}, read whole, session ${o.fate}`).toContain(record!.endReason);
      }
      const tally = (a: Action) => outcomes.filter((o) => o.action === a).length;
      console.info(
        `h2 fuzz ${mechanism}: ${outcomes.length} streams (read ${tally('read')}, reset ${tally('reset')}, reset at once ${tally('reset-at-once')}, paused ${tally('pause')}); ` +
          `${records.length} records: ${DELIVERY_END_REASONS.map((e) => `${e} ${records.filter((r) => r.endReason === e).length}`).join(', ')}`,
      );

      // Nothing left: no timer, no socket beyond those before.
      await waitFor(() => {
        const after = activeResources();
        return (
          (after.Timeout ?? 0) <= (before.Timeout ?? 0) &&
          (after.TLSWrap ?? 0) <= (before.TLSWrap ?? 0) &&
          (after.TCPSocketWrap ?? 0) <= (before.TCPSocketWrap ?? 0)
        );
      }, 10_000).catch(() => {
        throw new Error(`handles left: before ${JSON.stringify(before)}, after ${JSON.stringify(activeResources())}`);
      });

      // A fresh session is served and paced as asked.
      const fresh = await h2Connect(origin);
      try {
        const res = await h2Get(fresh, `/media/test/seg-8000.m4s?${cmcdQuery(8000, 'v')}`);
        expect(res.status).toBe(200);
        expect(res.bytes).toBe(bodyBytesFor(8000));
        const timing = parseServerTiming(String(res.headers['server-timing']));
        expect(timing).toMatchObject({ requestedRtpKbps: 8000, appliedPaceKbps: 8000, mechanism });
        expect(res.rateKbps, 'paced').toBeLessThanOrEqual(8000 * (1 + PACING_TOLERANCE));
      } finally {
        fresh.destroy();
      }
    } finally {
      await origin.close();
    }
  }, 90_000);
});

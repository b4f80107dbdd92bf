/**
 * One slow-reader policy for HTTP/1.1 and HTTP/2 (src/socket/read-progress.ts): a client that acknowledges less
 * than minReadKbps (128) in a progress window while bytes wait for it is cut, its record `stalled`;
 * one that reads at the pace floor (1024 kbps) is never cut. Progress is the kernel's acknowledged
 * bytes on both versions. All readers run at once against a 10 s window (the default is 30 s): a
 * window long enough that the old HTTP/2 check, which saw a stream move only per 64 KB chunk Node
 * handed on, held a 16 KB-every-2-s reader for ever, as HTTP/1.1 held any reader that acknowledged a
 * byte now and then.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MIN_PACE_KBPS, kbpsToBytesPerSecond, type DeliveryRecord } from 'sammy-pacing-protocol';
import { DEFAULT_MIN_READ_KBPS } from '../src/options.js';
import { cmcdQuery, expectPacedAt, makeMediaDir, startTestOrigin, waitFor, type RunningOrigin } from './helpers.js';
import { h2Connect, h2Get, startH2Origin, type H2Origin } from './http2-helpers.js';
import { rawH2, SETTING, windowUpdate } from './raw-h2.js';
import { connectRaw, request, throttle } from './raw-http.js';

const WINDOW_MS = 10_000;
const FLOOR_BYTES_PER_SECOND = kbpsToBytesPerSecond(DEFAULT_MIN_PACE_KBPS);
/** Longer than the window at the floor: 1.6 MB is 12.5 s at 1024 kbps. */
const LONG_BYTES = 1_600_000;
const PACE_KBPS = 2000;
const media = makeMediaDir([]);
let h1: RunningOrigin;
let h2: H2Origin;

beforeAll(async () => {
  writeFileSync(join(media.dir, 'test', 'normal.m4s'), Buffer.alloc(1_000_000, 9));
  for (const name of ['h1-slow', 'h1-floor', 'h2-slow', 'h2-ten', 'h2-floor'])
    writeFileSync(join(media.dir, 'test', `${name}.m4s`), Buffer.alloc(LONG_BYTES, 7));
  h1 = await startTestOrigin(media.dir, { progressTimeoutMs: WINDOW_MS });
  h2 = await startH2Origin(media.dir, { progressTimeoutMs: WINDOW_MS });
});
afterAll(async () => {
  await Promise.all([h1?.close(), h2?.close()]);
  media.remove();
});

interface Outcome {
  name: string;
  record: DeliveryRecord;
  /** ms from the request to the record's end. */
  endedAfterMs: number;
  bytesRead: number;
}

async function outcome(
  origin: { pacing: RunningOrigin['pacing'] },
  name: string,
  startedAt: number,
  bytesRead: () => number,
  limitMs: number,
): Promise<Outcome> {
  const path = `/media/test/${name}.m4s`;
  const found = () => origin.pacing.records.list().find((r) => r.path === path);
  await waitFor(() => found() !== undefined, limitMs).catch(() => undefined);
  const record = found();
  if (!record) throw new Error(`${name}: no record after ${limitMs} ms (held: never cut)`);
  return { name, record, endedAfterMs: performance.now() - startedAt, bytesRead: bytesRead() };
}

/** HTTP/1.1, reading `bytesPerSecond` through a receive buffer of `receiveBuffer` bytes. */
async function h1Reader(name: string, bytesPerSecond: number, receiveBuffer: number): Promise<Outcome> {
  const raw = await connectRaw(h1.port, { receiveBuffer });
  throttle(raw, bytesPerSecond);
  const startedAt = performance.now();
  raw.socket.write(request(`/media/test/${name}.m4s?${cmcdQuery(PACE_KBPS)}`));
  try {
    return await outcome(h1, name, startedAt, () => raw.responses[0]?.received ?? 0, WINDOW_MS + 8000);
  } finally {
    raw.socket.destroy();
  }
}

/** HTTP/2, granting `grantBytes` of stream and connection window every `everyMs` (reading nothing else). */
async function h2Reader(name: string, grantBytes: number, everyMs: number): Promise<Outcome> {
  const s = await rawH2({ port: h2.port, settings: { [SETTING.INITIAL_WINDOW_SIZE]: grantBytes }, reading: false });
  const startedAt = performance.now();
  const id = s.get(`/media/test/${name}.m4s?${cmcdQuery(PACE_KBPS, 'v')}`);
  // The connection window starts at 65 535: grant only what the stream gets, so the stream's rate is the session's.
  const grants = setInterval(() => s.write(windowUpdate(0, grantBytes), windowUpdate(id, grantBytes)), everyMs);
  try {
    return await outcome(h2, name, startedAt, () => s.streams.get(id)?.dataBytes ?? 0, WINDOW_MS + 8000);
  } finally {
    clearInterval(grants);
    s.destroy();
  }
}

describe('one slow-reader policy for HTTP/1.1 and HTTP/2', () => {
  it(`cuts a reader below ${DEFAULT_MIN_READ_KBPS} kbps within the window, never one at the ${DEFAULT_MIN_PACE_KBPS} kbps floor`, async () => {
    // A normal client beside them, 3 s in (every reader under way): paced at its rtp (achieved / rtp printed).
    const normal = (async () => {
      await new Promise((r) => setTimeout(r, 3000));
      const session = await h2Connect(h2);
      try {
        await h2Get(session, '/media/test/warm.m4s');
        return await h2Get(session, `/media/test/normal.m4s?${cmcdQuery(8000, 'v')}`);
      } finally {
        session.close();
      }
    })();
    const outcomes = await Promise.all([
      // 0.64 % of the floor (the 16 KB every 20 s is 0.64 % too), in small steps: a byte acknowledged every few seconds.
      h1Reader('h1-slow', 820, 2048),
      h1Reader('h1-floor', FLOOR_BYTES_PER_SECOND, 64 * 1024),
      // The HTTP/2 cases: 16 KB every 2 s (65 kbps: held for ever before), every 10 s (13 kbps: cut, but as if nothing moved).
      h2Reader('h2-slow', 16 * 1024, 2000),
      h2Reader('h2-ten', 16 * 1024, 10_000),
      h2Reader('h2-floor', 16 * 1024, Math.round((16 * 1024 * 1000) / FLOOR_BYTES_PER_SECOND)),
    ]);
    const served = await normal;
    console.log(`normal client beside the slow readers: ${(served.rateKbps / 8000).toFixed(3)}x its rtp`);
    expect(served.bytes).toBe(1_000_000);
    expectPacedAt(served.rateKbps, 8000);
    for (const o of outcomes)
      console.log(
        `${o.name}: ${o.record.endReason} after ${(o.endedAfterMs / 1000).toFixed(1)} s, ${o.bytesRead} B read (${((o.bytesRead * 8) / o.endedAfterMs).toFixed(0)} kbps)`,
      );
    for (const o of outcomes.filter((x) => !x.name.endsWith('floor'))) {
      expect(o.record, o.name).toMatchObject({ endReason: 'stalled', aborted: true });
      // Within the window, plus a progress check (a quarter of it at most) and a loaded machine's slack.
      expect(o.endedAfterMs, o.name).toBeGreaterThanOrEqual(WINDOW_MS - 500);
      expect(o.endedAfterMs, o.name).toBeLessThan(WINDOW_MS + WINDOW_MS / 4 + 2000);
    }
    for (const o of outcomes.filter((x) => x.name.endsWith('floor'))) {
      expect(o.record, o.name).toMatchObject({ endReason: 'delivered', bytes: LONG_BYTES });
      expect(o.endedAfterMs, `${o.name} read for longer than the window`).toBeGreaterThan(WINDOW_MS);
    }
  }, 40_000);
});

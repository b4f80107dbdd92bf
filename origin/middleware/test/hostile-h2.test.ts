/**
 * HTTP/2 clients that misbehave on purpose, written frame by frame (raw-h2.ts): streams reset in the
 * same write as their HEADERS, thousands of resets at once, windows that never open while PINGs keep
 * the session busy, many paced streams at once read through 64 KB windows. Each must leave no file
 * open and no session held, and every complete response must end with END_STREAM.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { kbpsToBytesPerSecond, type DeliveryRecord } from 'sammy-pacing-protocol';
import { bodyBytesFor, cmcdQuery, LOOPBACK_TSO_BYTES, makeMediaDir, expectPacedAt, waitFor } from './helpers.js';
import { h2Connect, h2Get, sendGateAt, startH2Origin, type H2Origin } from './http2-helpers.js';
import {
  ERROR_CODE,
  FLAG,
  FRAME,
  frame,
  getHeaders,
  headerBlock,
  openFdsTo,
  ping,
  rawH2,
  rstStream,
  SETTING,
  windowUpdate,
  type RawH2Session,
} from './raw-h2.js';

const media = makeMediaDir([8000]);
afterAll(() => media.remove());
const SEGMENT = '/media/test/seg-8000.m4s';
const SEGMENT_BYTES = bodyBytesFor(8000);
const FILES = ['manifest.mpd', 'seg-8000.m4s'];

/** Open fds of this process on the test's media files. */
async function mediaFds(): Promise<number> {
  let n = 0;
  for (const f of FILES) n += await openFdsTo(`/test/${f}`);
  return n;
}

/** A normal client on a fresh session: a paced segment arrives whole, at its rtp (never fast; a starved CPU only slows it). */
async function expectServedAtRtp(origin: H2Origin, kbps = 8000): Promise<void> {
  const session = await h2Connect(origin);
  try {
    await h2Get(session, '/media/test/warm.m4s');
    const res = await h2Get(session, `${SEGMENT}?${cmcdQuery(kbps, 'v')}`);
    expect(res.status).toBe(200);
    expect(res.bytes).toBe(SEGMENT_BYTES);
    expectPacedAt(res.rateKbps, kbps);
  } finally {
    session.close();
  }
}

function recordsOf(origin: H2Origin, since: number): DeliveryRecord[] {
  return origin.pacing.records.list().filter((r) => r.id > since);
}

const lastRecordId = (origin: H2Origin) => origin.pacing.records.list().at(-1)?.id ?? 0;

describe.each(['kernel', 'userspace'] as const)('hostile HTTP/2 clients (%s pacing)', (pacing) => {
  let origin: H2Origin;
  const sessions: RawH2Session[] = [];
  const open = async (opts: Omit<Parameters<typeof rawH2>[0], 'port'> = {}) => {
    const s = await rawH2({ port: origin.port, ...opts });
    sessions.push(s);
    return s;
  };
  beforeAll(async () => {
    origin = await startH2Origin(media.dir, { pacing, progressTimeoutMs: 2000 });
  });
  // Each case starts with the last one's responses recorded, and its clients gone.
  beforeEach(() => waitFor(() => origin.pacing.activeResponses === 0, 10_000));
  afterEach(() => {
    for (const s of sessions.splice(0)) s.destroy();
  });
  afterAll(() => origin.close());

  it('streams reset in the same write as their HEADERS leave no file open', async () => {
    const s = await open();
    const chunks: Buffer[] = [];
    for (let i = 0; i < 100; i++) {
      const path = i % 2 === 0 ? '/media/test/manifest.mpd' : `${SEGMENT}?${cmcdQuery(8000, 'v')}`;
      const id = s.nextStreamId();
      chunks.push(frame(FRAME.HEADERS, FLAG.END_STREAM | FLAG.END_HEADERS, id, getHeaders(path)), rstStream(id));
    }
    s.write(...chunks);
    await sleep(500);
    // Before the fix: 50-100 fds on these files, open for good (on-finished never heard the reset).
    await waitFor(async () => (await mediaFds()) === 0, 5000).catch(async () =>
      expect(await mediaFds(), 'files still open with the session alive').toBe(0),
    );
    s.destroy();
    await waitFor(() => origin.pacing.activeResponses === 0, 5000);
    expect(await mediaFds()).toBe(0);
  });

  it('2000 streams reset at once: GOAWAY (ENHANCE_YOUR_CALM), no file left open, others still served at their rtp', async () => {
    const s = await open();
    const chunks: Buffer[] = [];
    for (let i = 0; i < 2000; i++) {
      const id = s.nextStreamId();
      chunks.push(frame(FRAME.HEADERS, FLAG.END_STREAM | FLAG.END_HEADERS, id, getHeaders('/media/test/manifest.mpd')), rstStream(id));
    }
    s.write(...chunks);
    await waitFor(() => s.isClosed(), 10_000);
    expect(s.goaway?.code, 'GOAWAY code').toBe(ERROR_CODE.ENHANCE_YOUR_CALM);
    await waitFor(async () => (await mediaFds()) === 0, 5000);
    await expectServedAtRtp(origin);
  });

  it('a client that grants no window but keeps PINGing is closed after the progress timeout, its files freed', async () => {
    const since = lastRecordId(origin);
    const s = await open({ settings: { [SETTING.INITIAL_WINDOW_SIZE]: 0 } });
    for (let i = 0; i < 5; i++) s.get(`${SEGMENT}?${cmcdQuery(8000, 'v')}`);
    const startedAt = performance.now();
    while (!s.isClosed() && performance.now() - startedAt < 10_000) {
      s.write(ping());
      await sleep(200);
    }
    const heldMs = performance.now() - startedAt;
    // Before: held for as long as it kept PINGing (the whole 10 s here; 75 s in the probe).
    expect(s.isClosed(), 'session closed').toBe(true);
    expect(heldMs).toBeGreaterThanOrEqual(2000);
    expect(heldMs).toBeLessThan(2000 + 2000 / 8 + 1000);
    await waitFor(() => recordsOf(origin, since).length === 5, 5000).catch(() => expect(recordsOf(origin, since)).toHaveLength(5));
    for (const r of recordsOf(origin, since)) expect(r, JSON.stringify(r)).toMatchObject({ endReason: 'stalled', aborted: true });
    await waitFor(async () => (await mediaFds()) === 0, 5000);
    await expectServedAtRtp(origin);
  });

  it('on a session that is still moving, only the stream whose window stays shut is reset', async () => {
    const since = lastRecordId(origin);
    const s = await open({ settings: { [SETTING.INITIAL_WINDOW_SIZE]: 0 }, reading: false });
    const shut = s.get(`${SEGMENT}?${cmcdQuery(8000, 'v')}`);
    const read = s.get(`${SEGMENT}?${cmcdQuery(8000, 'v')}`);
    // The second stream's whole body, in windows handed out as it arrives: a slow reader, still reading.
    const fed = (async () => {
      for (let given = 0; given < SEGMENT_BYTES && !s.isClosed(); given += 64 * 1024) {
        s.write(windowUpdate(0, 64 * 1024), windowUpdate(read, 64 * 1024));
        await sleep(150);
      }
    })();
    await waitFor(() => s.streams.get(shut)?.rstCode !== undefined || s.isClosed(), 12_000).catch(() =>
      expect(s.streams.get(shut)).toMatchObject({ rstCode: ERROR_CODE.CANCEL }),
    );
    expect(s.isClosed(), 'the session stays').toBe(false);
    expect(s.streams.get(shut)?.rstCode).toBe(ERROR_CODE.CANCEL);
    await fed;
    await waitFor(() => s.streams.get(read)?.endStream === true, 10_000);
    expect(s.streams.get(read)).toMatchObject({ dataBytes: SEGMENT_BYTES, endedBeforeReset: true });
    await waitFor(() => recordsOf(origin, since).length === 2, 5000);
    const [first, second] = recordsOf(origin, since).sort((a, b) => a.id - b.id);
    expect(first).toMatchObject({ endReason: 'stalled' });
    expect(second).toMatchObject({ endReason: 'delivered', bytes: SEGMENT_BYTES });
  }, 30_000);

  it('DATA on a half-closed (remote) stream gets STREAM_CLOSED (RFC 9113 §6.1), also when the answer has no body', async () => {
    const s = await open();
    // h2spec's http2/6.1/2: HEADERS that end the stream, then DATA on it, in one write. A POST to a
    // file is answered 405 without a body by serve-static at once: answered inside Node's read of the
    // HEADERS, the stream was closed before nghttp2 read the DATA, which it then ignored.
    const id = s.nextStreamId();
    const post = headerBlock([
      [':method', 'POST'],
      [':scheme', 'https'],
      [':authority', 'localhost'],
      [':path', `${SEGMENT}?${cmcdQuery(8000, 'v')}`],
    ]);
    s.write(
      frame(FRAME.HEADERS, FLAG.END_STREAM | FLAG.END_HEADERS, id, post),
      frame(FRAME.DATA, FLAG.END_STREAM, id, Buffer.from('test')),
    );
    await waitFor(() => s.streams.get(id)?.rstCode !== undefined || s.goaway !== undefined || s.isClosed(), 3000).catch(() => undefined);
    const code = s.streams.get(id)?.rstCode ?? s.goaway?.code;
    expect(code, `RST_STREAM or GOAWAY code (stream: ${JSON.stringify(s.streams.get(id))})`).toBe(ERROR_CODE.STREAM_CLOSED);
    // The client leaves. Before: a session that had sent GOAWAY read its socket no more, never heard
    // the FIN, and held the socket and the response for good (the server could not even close).
    s.destroy();
    await waitFor(() => origin.pacing.activeResponses === 0, 5000).catch(() =>
      expect(origin.pacing.activeResponses, 'responses held after the client left').toBe(0),
    );
    await expectServedAtRtp(origin);
  });

  it('ten concurrent paced responses read through 64 KB windows each end with END_STREAM, never RST_STREAM', async () => {
    const s = await open();
    const ids = Array.from({ length: 10 }, () => s.get(`${SEGMENT}?${cmcdQuery(50000, 'v')}`));
    await waitFor(() => ids.every((id) => s.streams.get(id)?.endStream || s.streams.get(id)?.rstCode !== undefined), 15_000);
    for (const id of ids) {
      // Before: 8 of 10 got every byte, then RST_STREAM(NO_ERROR) and no END_STREAM.
      expect(s.streams.get(id), `stream ${id}`).toMatchObject({ dataBytes: SEGMENT_BYTES, endStream: true, endedBeforeReset: true });
    }
  }, 20_000);
});

describe('a record of a session the client resets mid-transfer', () => {
  let origin: H2Origin;
  beforeAll(async () => {
    origin = await startH2Origin(media.dir);
  });
  afterAll(() => origin.close());

  it('counts what the client got, less at most what was in flight', async () => {
    const session = await h2Connect(origin);
    await h2Get(session, '/media/test/warm.m4s');
    session.close();
    await waitFor(() => origin.pacing.activeResponses === 0, 5000);
    const s = await rawH2({ port: origin.port });
    s.get(`${SEGMENT}?${cmcdQuery(2000, 'v')}`);
    await waitFor(() => (s.streams.get(1)?.dataBytes ?? 0) > 475_000, 10_000);
    // A TCP reset from the client, as a tab killed mid-download.
    s.tcp.resetAndDestroy();
    const received = s.streams.get(1)!.dataBytes;
    await waitFor(() => origin.pacing.activeResponses === 0, 5000);
    const record = origin.pacing.records.list().at(-1)!;
    expect(record, JSON.stringify(record)).toMatchObject({ path: SEGMENT, aborted: true, bytesExact: false });
    expect(record.bytes, `record ${record.bytes} B, client got ${received} B`).toBeLessThanOrEqual(received);
    // Short of it by at most what the connection held unacknowledged (the send gate's worth), what was
    // sent since the last read (a poll every 250 ms while bodies are written) and one TSO packet.
    // Before: 0 (the last read was from before the body started).
    const slackBytes = sendGateAt(2000).bytes + kbpsToBytesPerSecond(2000) * 0.25 + LOOPBACK_TSO_BYTES;
    expect(record.bytes, `record ${record.bytes} B, client got ${received} B`).toBeGreaterThanOrEqual(received - slackBytes);
  });
});

/**
 * HTTP/2: every stream of a session shares one TCP connection and so one socket pace. The rules
 * (sammy-pacing-protocol decideConnectionPace) tested with node:http2 clients on a real TLS origin:
 * (1) a paced response is never unpaced or re-paced lower by a concurrent request without rtp that is
 * not a media segment (a manifest), or with a smaller rtp; (2) a media segment without rtp (a player's
 * initial phase: a seek, a stall) unpaces the connection; (3) a pace never outlives the media session:
 * on an idle connection each request's own rtp (or none) decides.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ClientHttp2Session } from 'node:http2';
import { parseServerTiming, type DeliveryRecord } from 'sammy-pacing-protocol';
import { bodyBytesFor, cmcdQuery, expectPacedAt, makeMediaDir, PACING_TOLERANCE, relativeError, waitFor } from './helpers.js';
import { h2Connect, h2Get, h2Reset, h2SocketQuiet, sendGateAt, startH2Origin, type H2Origin } from './http2-helpers.js';

const VIDEO_KBPS = 8000;
const AUDIO_KBPS = 1000;
const media = makeMediaDir([2000, VIDEO_KBPS, 40000]);
afterAll(() => media.remove());

const video = `/media/test/seg-${VIDEO_KBPS}.m4s`;
/** A segment longer than the kernel's paced send buffer (a second at the pace, doubled by the kernel). */
const long = '/media/test/long.m4s';
writeFileSync(join(media.dir, 'test', 'long.m4s'), randomBytes(bodyBytesFor(VIDEO_KBPS, 4)));

function recordOf(origin: H2Origin, serverTiming: unknown): Promise<DeliveryRecord> {
  const id = parseServerTiming(String(serverTiming)).recordId;
  expect(id, 'Server-Timing carries the record id').toBeTypeOf('number');
  let found: DeliveryRecord | undefined;
  return waitFor(() => (found = origin.pacing.records.list().find((r) => r.id === id)) !== undefined, 10_000).then(() => found!);
}

/** The send gate at the video's pace, bytes, and the time the pace takes to send it. */
const { bytes: GATE_BYTES, ms: GATE_MS } = sendGateAt(VIDEO_KBPS);

describe('HTTP/2: one pace per connection, shared by its streams', () => {
  let origin: H2Origin;
  let session: ClientHttp2Session;
  beforeAll(async () => {
    origin = await startH2Origin(media.dir, { untracked: true });
    session = await h2Connect(origin);
    // Past the kernel's unpaced first segments, and an idle connection to start from.
    await h2Get(session, '/media/test/warm.m4s');
  });
  afterAll(async () => {
    session.close();
    await origin.close();
  });
  // Each case starts on an idle connection: the previous case's responses delivered and recorded.
  beforeEach(() => waitFor(() => origin.pacing.activeResponses === 0, 10_000));

  it('negotiates h2 and paces a segment at its rtp, reporting the connection pace', async () => {
    const res = await h2Get(session, `${video}?${cmcdQuery(VIDEO_KBPS, 'v')}`);
    expect(res.status).toBe(200);
    expect(res.bytes).toBe(bodyBytesFor(VIDEO_KBPS));
    expectPacedAt(res.rateKbps, VIDEO_KBPS);
    const report = parseServerTiming(String(res.headers['server-timing']));
    expect(report).toMatchObject({
      requestedRtpKbps: VIDEO_KBPS,
      appliedPaceKbps: VIDEO_KBPS,
      mechanism: 'kernel',
      sharedConnection: { reason: 'own' },
    });
    const record = await recordOf(origin, res.headers['server-timing']);
    expect(record).toMatchObject({
      httpVersion: '2',
      objectType: 'v',
      paceReason: 'own',
      endReason: 'delivered',
      aborted: false,
      bytes: res.bytes,
      bytesExact: true,
    });
    expect(relativeError(record.achievedKbps ?? NaN, res.rateKbps)).toBeLessThan(0.1);
  });

  it('(1) a manifest without rtp mid-transfer keeps the pace: the segment still arrives at its rtp', async () => {
    const segment = h2Get(session, `${video}?${cmcdQuery(VIDEO_KBPS, 'v')}`);
    await sleep(300);
    const manifest = await h2Get(session, '/media/test/manifest.mpd', { 'cmcd-object': 'ot=m' });
    const seg = await segment;
    expect(parseServerTiming(String(manifest.headers['server-timing']))).toMatchObject({
      appliedPaceKbps: VIDEO_KBPS,
      sharedConnection: { reason: 'kept', concurrent: 1 },
    });
    expectPacedAt(seg.rateKbps, VIDEO_KBPS);
    const manifestRecord = await recordOf(origin, manifest.headers['server-timing']);
    expect(manifestRecord.paceReason).toBe('kept');
    // One session, one connection: both records name the same one.
    expect(manifestRecord.connectionId).toBe((await recordOf(origin, seg.headers['server-timing'])).connectionId);
  });

  it('(1) a concurrent audio request with a smaller rtp does not throttle the video', async () => {
    const segment = h2Get(session, `${video}?${cmcdQuery(VIDEO_KBPS, 'v')}`);
    await sleep(200);
    const audio = await h2Get(session, `/media/test/warm.m4s?${cmcdQuery(AUDIO_KBPS, 'a')}`);
    const seg = await segment;
    expect(parseServerTiming(String(audio.headers['server-timing']))).toMatchObject({
      requestedRtpKbps: AUDIO_KBPS,
      appliedPaceKbps: VIDEO_KBPS,
      sharedConnection: { reason: 'kept' },
    });
    // The two streams share the connection's pace (which is why Sammy's players ask for top video +
    // top audio): together they arrive at the video's rtp. Throttled to the audio's 1000 kbps, the
    // pair would take 8× as long.
    const together = ((seg.bytes + audio.bytes) * 8) / (Math.max(seg.lastByteAt, audio.lastByteAt) - seg.sentAt);
    expectPacedAt(together, VIDEO_KBPS);
  });

  it('(1) a concurrent request with a larger rtp raises the pace', async () => {
    const slow = h2Get(session, `/media/test/seg-2000.m4s?${cmcdQuery(2000, 'v')}`);
    await sleep(200);
    const fast = await h2Get(session, `${video}?${cmcdQuery(VIDEO_KBPS, 'v')}`);
    expect(parseServerTiming(String(fast.headers['server-timing']))).toMatchObject({
      appliedPaceKbps: VIDEO_KBPS,
      sharedConnection: { reason: 'raised' },
    });
    await slow;
  });

  it('a busy paced connection still answers at once: a request mid-transfer waits behind the send gate, not a send buffer of the pace', async () => {
    const segment = h2Get(session, `${long}?${cmcdQuery(VIDEO_KBPS, 'v')}`);
    // Long enough for the kernel's send buffer (a second at the pace) to have filled, without the gate.
    await sleep(700);
    const manifest = await h2Get(session, '/media/test/manifest.mpd', { 'cmcd-object': 'ot=m' });
    const seg = await segment;
    expect(parseServerTiming(String(manifest.headers['server-timing']))).toMatchObject({
      appliedPaceKbps: VIDEO_KBPS,
      sharedConnection: { reason: 'kept' },
    });
    // Its response queues behind what the connection holds unsent (at most the gate) at the pace.
    const waited = manifest.firstByteMs;
    expect(
      waited,
      `the manifest's first byte, ${waited.toFixed(0)} ms after its request (the gate: ${GATE_MS.toFixed(0)} ms at the pace)`,
    ).toBeLessThan(3 * GATE_MS);
    // And the gate costs the paced segment nothing.
    expectPacedAt(seg.rateKbps, VIDEO_KBPS);
  });

  it('(2) a media segment without rtp mid-transfer (a seek; the old download runs on) unpaces the connection', async () => {
    const old = h2Get(session, `${video}?${cmcdQuery(VIDEO_KBPS, 'v')}`);
    await sleep(300);
    const seeked = await h2Get(session, '/media/test/seg-40000.m4s', { 'cmcd-object': 'ot=v' });
    const left = await old;
    expect(parseServerTiming(String(seeked.headers['server-timing']))).toMatchObject({
      mechanism: 'none',
      sharedConnection: { reason: 'own', concurrent: 1 },
    });
    expect((await recordOf(origin, seeked.headers['server-timing'])).appliedPaceKbps).toBeUndefined();
    // The new position's 40 Mbit/s segment arrives far faster than the old pace, and takes the rest of the old one with it.
    expect(seeked.rateKbps, `the new segment, ${seeked.rateKbps.toFixed(0)} kbps`).toBeGreaterThan(VIDEO_KBPS * 3);
    expect(left.rateKbps, `the old segment, unpaced once the new one arrived: ${left.rateKbps.toFixed(0)} kbps`).toBeGreaterThan(
      VIDEO_KBPS * 1.3,
    );
  });

  it('(2) a seek that resets the paced stream: the server hears it at once, drops the bytes it still held, and sends the next media segment without rtp unpaced', async () => {
    const s = await h2Connect(origin);
    try {
      await h2Get(s, '/media/test/warm.m4s');
      // CANCEL, as a browser's player aborting its download on a seek, once a send buffer would be full.
      const { received } = await h2Reset(s, `${long}?${cmcdQuery(VIDEO_KBPS, 'v')}`, 600_000);
      const seeked = await h2Get(s, '/media/test/seg-40000.m4s', { 'cmcd-object': 'ot=v' });
      expect(parseServerTiming(String(seeked.headers['server-timing']))).toMatchObject({
        mechanism: 'none',
        sharedConnection: { reason: 'own' },
      });
      expect(seeked.rateKbps, `the new segment, ${seeked.rateKbps.toFixed(0)} kbps`).toBeGreaterThan(VIDEO_KBPS * 3);
      // The reset stream's bytes still in the server were dropped, not sent: it had handed the
      // connection little more than the client got (without the gate: its whole send buffer, ~2 MB).
      const { connectionId } = await recordOf(origin, seeked.headers['server-timing']);
      let cut: DeliveryRecord | undefined;
      await waitFor(
        () =>
          (cut = origin.pacing.records.list().find((r) => r.connectionId === connectionId && r.path === long && r.aborted)) !== undefined,
        10_000,
      );
      expect(cut!.bytesWritten - received, `bytes handed to the connection beyond the ${received} the client got`).toBeLessThanOrEqual(
        2 * GATE_BYTES,
      );
      // And it heard the reset and the request at once: Node reads nothing while a write to a full
      // paced send buffer is unfinished (0–0.6 s without the gate).
      const waited = seeked.firstByteMs;
      expect(waited, `the new segment's first byte, ${waited.toFixed(0)} ms after its request`).toBeLessThan(GATE_MS);
    } finally {
      s.close();
    }
  });

  it('(3) on an idle connection a request without rtp is unpaced, and a lower rtp applies as asked', async () => {
    const paced = await h2Get(session, `${video}?${cmcdQuery(VIDEO_KBPS, 'v')}`);
    await recordOf(origin, paced.headers['server-timing']); // delivered: the connection is idle again
    const unpaced = await h2Get(session, '/media/test/seg-40000.m4s');
    expect(parseServerTiming(String(unpaced.headers['server-timing']))).toMatchObject({
      mechanism: 'none',
      sharedConnection: { reason: 'own', concurrent: 0 },
    });
    expect(unpaced.rateKbps, 'unpaced, far faster than the old pace').toBeGreaterThan(VIDEO_KBPS * 3);
    await recordOf(origin, unpaced.headers['server-timing']);
    const lower = await h2Get(session, `/media/test/seg-2000.m4s?${cmcdQuery(2000, 'v')}`);
    expectPacedAt(lower.rateKbps, 2000);
  });

  it('(3) a response the middleware does not track (served before it) does not keep an old pace alive', async () => {
    const paced = await h2Get(session, `${video}?${cmcdQuery(VIDEO_KBPS, 'v')}`);
    await recordOf(origin, paced.headers['server-timing']);
    // Still paced at the old rate: its 2 MB sit in the kernel's queue for seconds.
    const untracked = h2Get(session, '/untracked');
    await sleep(200);
    const lower = await h2Get(session, `/media/test/seg-2000.m4s?${cmcdQuery(2000, 'v')}`);
    expect(parseServerTiming(String(lower.headers['server-timing']))).toMatchObject({
      appliedPaceKbps: 2000,
      sharedConnection: { reason: 'own' },
    });
    await untracked;
  });
});

describe('HTTP/2: bad input, aborts and floods', () => {
  let origin: H2Origin;
  beforeAll(async () => {
    origin = await startH2Origin(media.dir);
  });
  afterAll(() => origin.close());

  it('malformed CMCD is ignored: served unpaced', async () => {
    const session = await h2Connect(origin);
    try {
      for (const q of ['CMCD=rtp%3D-5', 'CMCD=rtp%3Dabc', `CMCD=${'x'.repeat(5000)}`, 'CMCD=%E0%A4%A']) {
        const res = await h2Get(session, `/media/test/manifest.mpd?${q}`);
        expect(res.status, q).toBe(200);
        expect(parseServerTiming(String(res.headers['server-timing'])).mechanism, q).toBe('none');
      }
      const header = await h2Get(session, '/media/test/manifest.mpd', { 'cmcd-status': 'rtp=1e999' });
      expect(header.status).toBe(200);
    } finally {
      session.close();
    }
  });

  it('RST_STREAM mid-transfer: the record says aborted, never more bytes than the client got plus what was in flight', async () => {
    // Node's 64 KB windows keep the stream mid-transfer at the HTTP/2 level when it is reset.
    const session = await h2Connect(origin, { nodeWindows: true });
    const { received, socketBytesAtReset } = await h2Reset(session, `${video}?${cmcdQuery(VIDEO_KBPS)}`, 200_000);
    await waitFor(() => origin.pacing.records.list().some((r) => r.path === video && r.aborted), 10_000);
    const record = origin.pacing.records.list().find((r) => r.path === video && r.aborted)!;
    expect(record).toMatchObject({ endReason: 'closed', aborted: true, bytesExact: false, httpVersion: '2' });
    // In flight: what reached the client's socket after the reset, frames and all (nothing else was
    // requested meanwhile), which its HTTP/2 layer then dropped. The record's lower bound counts bytes
    // that left the server and were acknowledged, so it may include them, never more: Node 26's server
    // reads its last acknowledgement later than Node 20–24's and counts up to ~7 KB past `received`.
    // Here the whole body written (256 KB) reaches the client, so this bound cannot see bytes counted
    // while still in the server; test (2) above bounds what a reset stream had handed the connection.
    const inFlight = (await h2SocketQuiet(session)) - socketBytesAtReset;
    expect(record.bytes, `${received} B received + ${inFlight} B in flight`).toBeLessThanOrEqual(received + inFlight);
    expect(record.bytesWritten).toBeGreaterThanOrEqual(record.bytes);
    // The same session serves on.
    const after = await h2Get(session, '/media/test/manifest.mpd');
    expect(after.status).toBe(200);
    session.close();
  });

  it("a stream its client stops reading holds only itself: the session's other responses go on at the pace, and it completes once read again", async () => {
    // Node's 64 KB windows: the server soon holds bytes of the unread stream that it may not send.
    const session = await h2Connect(origin, { nodeWindows: true });
    try {
      await h2Get(session, '/media/test/warm.m4s');
      const unread = session.request({ ':path': `${long}?${cmcdQuery(VIDEO_KBPS)}` });
      let got = 0;
      let paused = false;
      let serverTiming: unknown;
      unread.on('response', (headers) => (serverTiming = headers['server-timing']));
      const ended = new Promise<void>((resolve, reject) => {
        unread.on('end', resolve);
        unread.on('error', reject);
      });
      unread.on('data', (d: Buffer) => {
        got += d.length;
        if (got > 100_000 && !paused) {
          paused = true;
          unread.pause();
        }
      });
      unread.end();
      await waitFor(() => paused, 10_000);
      // Its window spent, the rest of what the server handed it waits in Node.
      await sleep(500);
      const pacedMs = (bodyBytesFor(VIDEO_KBPS) * 8) / VIDEO_KBPS;
      const other = await Promise.race([h2Get(session, `${video}?${cmcdQuery(VIDEO_KBPS)}`), sleep(3 * pacedMs, undefined)]);
      expect(other, `a paced segment on the same session within 3× its ${pacedMs} ms at the pace, the other stream unread`).toBeDefined();
      expect(other!.status).toBe(200);
      expect(other!.bytes).toBe(bodyBytesFor(VIDEO_KBPS));
      expect(other!.rateKbps, 'still paced').toBeLessThanOrEqual(VIDEO_KBPS * (1 + PACING_TOLERANCE));
      const manifest = await h2Get(session, '/media/test/manifest.mpd');
      expect(manifest.status).toBe(200);
      // Read again, the unread stream gets the rest of its body, and its record says so.
      const id = parseServerTiming(String(serverTiming)).recordId;
      expect(id, 'Server-Timing carries the record id').toBeTypeOf('number');
      unread.resume();
      await ended;
      expect(got).toBe(bodyBytesFor(VIDEO_KBPS, 4));
      await waitFor(() => origin.pacing.records.list().some((r) => r.id === id), 10_000);
      expect(origin.pacing.records.list().find((r) => r.id === id)).toMatchObject({
        endReason: 'delivered',
        aborted: false,
        bytes: bodyBytesFor(VIDEO_KBPS, 4),
      });
    } finally {
      // Not close(): a failed case leaves the unread stream open, and close() would wait for it.
      session.destroy();
    }
  });

  it('a client that opens 1000 streams at once: the server serves it and others, and tracks nothing afterwards', async () => {
    const flood = await h2Connect(origin);
    const results = await Promise.allSettled(
      Array.from({ length: 1000 }, () => h2Get(flood, `/media/test/manifest.mpd?${cmcdQuery(4000)}`)),
    );
    const ok = results.filter((r) => r.status === 'fulfilled' && r.value.status === 200).length;
    // Beyond the server's concurrent-stream limit a stream may be refused; none may be a server error.
    for (const r of results) if (r.status === 'fulfilled') expect(r.value.status).toBe(200);
    expect(ok).toBeGreaterThan(0);
    const other = await h2Connect(origin);
    expect((await h2Get(other, '/media/test/manifest.mpd')).status).toBe(200);
    flood.close();
    other.close();
    await waitFor(() => origin.pacing.activeResponses === 0, 10_000);
  });

  it('a client that goes the moment its last byte arrives: the response is delivered, every byte', async () => {
    for (let i = 0; i < 5; i++) {
      const session = await h2Connect(origin);
      const res = await h2Get(session, `${video}?${cmcdQuery(VIDEO_KBPS)}`);
      // At once: the FIN acknowledges everything, and the server must read it before the socket goes.
      session.destroy();
      const id = parseServerTiming(String(res.headers['server-timing'])).recordId;
      await waitFor(() => origin.pacing.records.list().some((r) => r.id === id), 10_000);
      expect(
        origin.pacing.records.list().find((r) => r.id === id),
        `round ${i}`,
      ).toMatchObject({ endReason: 'delivered', aborted: false, bytes: res.bytes, bytesExact: true });
    }
  });

  it('a session that goes away mid-transfer ends its records as closed', async () => {
    const session = await h2Connect(origin);
    const stream = session.request({ ':path': `${video}?${cmcdQuery(VIDEO_KBPS)}` });
    stream.on('data', () => {});
    stream.on('error', () => {});
    stream.end();
    await sleep(300);
    session.destroy();
    await waitFor(() => origin.pacing.activeResponses === 0, 10_000);
    const last = origin.pacing.records.list().at(-1)!;
    expect(last).toMatchObject({ path: video, aborted: true });
  });
});

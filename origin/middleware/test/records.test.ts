/**
 * Delivery records: private unless `sammyRecords()` is mounted, each response names its own record,
 * and the event stream stays bounded whatever its subscribers do. Real sockets on loopback.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import express from 'express';
import {
  parseServerTiming,
  RECORD_EVENT,
  RECORD_EVENTS_PATH,
  RECORDS_PATH,
  RECORDS_SKIPPED_EVENT,
  type DeliveryRecord,
  type RecordsSkipped,
} from 'sammy-pacing-protocol';
import { MEDIA_PATH } from '@sammy/test-content/media-paths';
import { DeliveryRecordLog } from '../src/records/log.js';
import { silentLogger } from '../src/logger.js';
import { sammyPacing, type SammyPacingHandler } from '../src/middleware.js';
import { sammyRecords, type SammyRecordsHandler, type SammyRecordsOptions } from '../src/records/handler.js';
import { cmcdQuery, get, makeMediaDir, startTestOrigin, waitFor } from './helpers.js';

const media = makeMediaDir([2000]);
afterAll(() => media.remove());

/** A record of the usual size (~350 bytes of JSON). */
function fakeRecord(n: number): Omit<DeliveryRecord, 'id'> {
  return {
    path: `/media/default/seg-4-${String(n).padStart(5, '0')}.m4s`,
    status: 200,
    bytes: 3_000_000,
    bytesExact: true,
    bytesWritten: 3_000_000,
    startedAt: 1_700_000_000_000 + n,
    finishedAt: 1_700_000_001_300 + n,
    durationMs: 1300,
    requestedRtpKbps: 18_300,
    appliedPaceKbps: 18_300,
    achievedKbps: 18_123.456,
    mechanism: 'kernel',
    retransmits: 0,
    rttMs: 0.123,
    congestionControl: 'cubic',
    endReason: 'delivered',
    aborted: false,
  };
}

interface RecordsServer {
  url: string;
  port: number;
  server: Server;
  pacing: SammyPacingHandler;
  records: SammyRecordsHandler;
  close(): Promise<void>;
}

/** The reference layout: records first (never paced or recorded themselves), then pacing, then the media. */
async function startRecordsServer(options: SammyRecordsOptions = {}): Promise<RecordsServer> {
  const pacing = sammyPacing({ logger: silentLogger });
  const records = sammyRecords(pacing.records, options);
  const app = express();
  app.use(records);
  app.use(pacing);
  app.use(MEDIA_PATH, express.static(media.dir, { fallthrough: false, index: false }));
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    pacing,
    records,
    close: () =>
      new Promise<void>((resolve) => {
        records.close();
        pacing.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** An event-stream client on a raw socket: `paused` ones never read, so the server's writes back up. */
class RawSubscriber {
  readonly socket: Socket;
  text = '';
  closed = false;

  constructor(port: number, paused: boolean) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => (this.text += chunk));
    this.socket.on('error', () => {});
    this.socket.on('close', () => (this.closed = true));
    this.socket.write(`GET ${RECORD_EVENTS_PATH} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n`);
    if (paused) this.socket.once('data', () => this.socket.pause());
  }

  /** SSE blocks received so far, as event name and data. */
  events(): Array<{ event: string; data: string }> {
    const body = this.text.slice(this.text.indexOf('\r\n\r\n') + 4);
    return body
      .split('\n\n')
      .map((block) => {
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        return event && data ? { event, data } : undefined;
      })
      .filter((e) => e !== undefined);
  }
}

describe('records are private', () => {
  it('the pacing middleware alone does not serve them, nor record what it did not handle', async () => {
    const origin = await startTestOrigin(media.dir);
    try {
      for (const path of [RECORDS_PATH, RECORD_EVENTS_PATH]) {
        // Under /media nothing else answers: the path falls through to Express's 404.
        const res = await get(origin, path);
        expect(res.status, path).toBe(404);
        expect(res.headers['content-type'] ?? '').not.toMatch(/json|event-stream/);
      }
    } finally {
      await origin.close();
    }
  });
});

describe('sammyRecords', () => {
  let origin: RecordsServer;
  beforeAll(async () => {
    origin = await startRecordsServer({ maxSubscribers: 2 });
  });
  afterAll(() => origin.close());

  it('each response carries its record id in Server-Timing, and the record has that id', async () => {
    const fetched = [];
    for (const query of [cmcdQuery(2000), '', cmcdQuery(4000)]) fetched.push(await get(origin, `/media/test/manifest.mpd?${query}`));
    const ids = fetched.map((res) => parseServerTiming(String(res.headers['server-timing'])).recordId);
    expect(ids.every((id) => Number.isSafeInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(3);
    await waitFor(() => ids.every((id) => origin.pacing.records.list().some((r) => r.id === id)));
    const byId = new Map(origin.pacing.records.list().map((r) => [r.id, r]));
    expect(ids.map((id) => byId.get(id!)?.requestedRtpKbps)).toEqual([2000, undefined, 4000]);
    expect(ids.map((id) => byId.get(id!)?.path)).toEqual(Array(3).fill('/media/test/manifest.mpd'));
  });

  it('serves the log as JSON, and its own responses are neither paced nor recorded', async () => {
    const res = await get(origin, RECORDS_PATH);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['server-timing']).toBeUndefined();
    const list = JSON.parse(res.body.toString()) as DeliveryRecord[];
    expect(list.length).toBeGreaterThan(0);
    expect(list.some((r) => r.path.startsWith('/sammy/'))).toBe(false);
  });

  it('streams each record as an event, and answers 503 beyond maxSubscribers', async () => {
    const subscribers = [new RawSubscriber(origin.port, false), new RawSubscriber(origin.port, false)];
    try {
      await waitFor(() => origin.records.subscribers().length === 2);
      const refused = await get(origin, RECORD_EVENTS_PATH);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBeDefined();
      const res = await get(origin, `/media/test/manifest.mpd?${cmcdQuery(3000)}`);
      const id = parseServerTiming(String(res.headers['server-timing'])).recordId;
      for (const s of subscribers) {
        await waitFor(() => s.events().some((e) => e.event === RECORD_EVENT && (JSON.parse(e.data) as DeliveryRecord).id === id));
        expect(s.text).toMatch(/^HTTP\/1\.1 200 /);
        expect(s.text).toMatch(/content-type: text\/event-stream/i);
      }
    } finally {
      for (const s of subscribers) s.socket.destroy();
    }
    // A subscriber's slot and listener go when it does.
    await waitFor(() => origin.records.subscribers().length === 0 && origin.pacing.records.subscriberCount === 0);
  });
});

describe('event stream under slow subscribers', () => {
  const MAX_QUEUED_BYTES = 64 * 1024;
  /** ~8 MB of events per subscriber: far more than the kernel's buffers and the queue cap hold. */
  const RECORDS = 20_000;
  let origin: RecordsServer;
  let subscribers: RawSubscriber[] = [];
  afterEach(async () => {
    for (const s of subscribers) s.socket.destroy();
    subscribers = [];
    await origin?.close();
  });

  it('20 subscribers that never read stay bounded: records are skipped, not queued', async () => {
    origin = await startRecordsServer({ maxSubscribers: 20, maxSubscribersPerClient: 20, maxQueuedBytes: MAX_QUEUED_BYTES });
    subscribers = Array.from({ length: 20 }, () => new RawSubscriber(origin.port, true));
    await waitFor(() => origin.records.subscribers().length === 20 && subscribers.every((s) => s.socket.isPaused()));
    const heapBefore = process.memoryUsage().heapUsed;
    const eventBytes = JSON.stringify({ id: 1, ...fakeRecord(1) }).length + 32;
    let maxQueued = 0;
    for (let i = 0; i < RECORDS; i++) {
      origin.pacing.records.add(fakeRecord(i));
      if (i % 1000 === 999) {
        for (const s of origin.records.subscribers()) maxQueued = Math.max(maxQueued, s.queuedBytes);
        // Let the sockets take what the kernel will accept.
        await new Promise((r) => setImmediate(r));
      }
    }
    const states = origin.records.subscribers();
    expect(states).toHaveLength(20);
    for (const s of states) {
      expect(s.queuedBytes).toBeLessThanOrEqual(MAX_QUEUED_BYTES + eventBytes);
      expect(s.totalSkipped).toBeGreaterThan(RECORDS / 2);
    }
    expect(maxQueued).toBeLessThanOrEqual(MAX_QUEUED_BYTES + eventBytes);
    // Unbounded, the queues alone would hold 20 × ~7 MB; bounded, 20 × 64 KB.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it('a subscriber that falls behind and catches up is told how many records it missed', async () => {
    origin = await startRecordsServer({ maxQueuedBytes: MAX_QUEUED_BYTES });
    const s = new RawSubscriber(origin.port, true);
    subscribers = [s];
    await waitFor(() => origin.records.subscribers().length === 1 && s.socket.isPaused());
    for (let i = 0; i < 5000; i++) origin.pacing.records.add(fakeRecord(i));
    const skippedWhileBehind = origin.records.subscribers()[0]!.pendingSkipped;
    expect(skippedWhileBehind).toBeGreaterThan(0);
    s.socket.resume();
    await waitFor(() => origin.records.subscribers()[0]!.queuedBytes === 0);
    const last = origin.pacing.records.add(fakeRecord(5000));
    await waitFor(() => s.events().some((e) => e.event === RECORD_EVENT && (JSON.parse(e.data) as DeliveryRecord).id === last.id));
    const events = s.events();
    const delivered = events.filter((e) => e.event === RECORD_EVENT).length;
    const skipped = events.filter((e) => e.event === RECORDS_SKIPPED_EVENT).map((e) => (JSON.parse(e.data) as RecordsSkipped).count);
    expect(skipped).toEqual([skippedWhileBehind]);
    // Every record is accounted for: delivered, or counted in a `skipped` event just before the next one.
    expect(delivered + skipped[0]!).toBe(5001);
    const skippedAt = events.findIndex((e) => e.event === RECORDS_SKIPPED_EVENT);
    expect(events[skippedAt + 1]).toMatchObject({ event: RECORD_EVENT });
  });

  it('a subscriber stalled past stalledTimeoutMs is disconnected and its slot freed', async () => {
    origin = await startRecordsServer({ maxQueuedBytes: MAX_QUEUED_BYTES, stalledTimeoutMs: 0, maxSubscribers: 1 });
    const s = new RawSubscriber(origin.port, true);
    subscribers = [s];
    await waitFor(() => origin.records.subscribers().length === 1 && s.socket.isPaused());
    for (let i = 0; i < 5000 && origin.records.subscribers().length > 0; i++) origin.pacing.records.add(fakeRecord(i));
    expect(origin.records.subscribers()).toHaveLength(0);
    expect(origin.pacing.records.subscriberCount).toBe(0);
    // Gone on the server's side (the paused client would only notice on its next read).
    await waitFor(() => new Promise<boolean>((resolve) => origin.server.getConnections((_err, n) => resolve(n === 0))));
    // The slot is free again.
    const next = new RawSubscriber(origin.port, false);
    subscribers.push(next);
    await waitFor(() => origin.records.subscribers().length === 1);
  });

  it('rejects nonsensical limits', () => {
    const log = new DeliveryRecordLog();
    expect(() => sammyRecords(log, { maxSubscribers: 0 })).toThrow(RangeError);
    expect(() => sammyRecords(log, { maxQueuedBytes: -1 })).toThrow(RangeError);
    expect(() => sammyRecords(log, { stalledTimeoutMs: Number.NaN })).toThrow(RangeError);
  });
});

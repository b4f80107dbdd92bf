/** The generated test ladder (real files, generated once and cached) and how the origin serves it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { parseServerTiming, RECORD_EVENT, RECORD_EVENTS_PATH, type DeliveryRecord } from 'sammy-pacing-protocol';
import { DEFAULT_LADDER, ensureContent } from '@sammy/test-content';
import type { RunningOrigin } from '../src/server.js';
import { cmcdQuery, get, startTestOrigin, waitFor } from './helpers.js';

/** The bound on each segment's size against its rung's nominal bandwidth. */
const SEGMENT_SIZE_TOLERANCE = 0.15;

interface Representation {
  id: string;
  bandwidth: number;
  mimeType: string;
  codecs: string;
  segmentS: number;
}

/** The few MPD attributes checked here, from each Representation and the SegmentTemplate inside it (as ffmpeg writes them). */
function representations(mpd: string): Representation[] {
  const found: Representation[] = [];
  for (const m of mpd.matchAll(/<Representation\b([^>]*)>[\s\S]*?<SegmentTemplate\b([^>]*)>/g)) {
    const attr = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1] ?? '';
    found.push({
      id: attr(m[1]!, 'id'),
      bandwidth: Number(attr(m[1]!, 'bandwidth')),
      mimeType: attr(m[1]!, 'mimeType'),
      codecs: attr(m[1]!, 'codecs'),
      segmentS: Number(attr(m[2]!, 'duration')) / Number(attr(m[2]!, 'timescale')),
    });
  }
  return found;
}

/** ISO 8601 durations as ffmpeg writes them (PT1M0.0S). */
function isoDurationS(value: string): number {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$/.exec(value);
  if (!m) throw new Error(`unexpected duration ${value}`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

let dir: string;
let mpd: string;
beforeAll(async () => {
  // Cached in .cache/media/default after the first run; the first encode takes about a minute (hookTimeout).
  ({ dir } = await ensureContent({ progress: false }));
  mpd = readFileSync(join(dir, 'manifest.mpd'), 'utf8');
});

describe('generated ladder', () => {
  it('has ≥ 5 H.264 video rungs from ~300 kbps to ≥ 6 Mbps, AAC audio, 2–4 s segments, ≥ 60 s', () => {
    const reps = representations(mpd);
    const video = reps.filter((r) => r.mimeType === 'video/mp4');
    expect(video.length).toBeGreaterThanOrEqual(5);
    expect(video.every((r) => r.codecs.startsWith('avc1.'))).toBe(true);
    const rates = video.map((r) => r.bandwidth / 1000);
    expect(Math.min(...rates)).toBeLessThanOrEqual(350);
    expect(Math.max(...rates)).toBeGreaterThanOrEqual(6000);
    expect(reps.some((r) => r.mimeType === 'audio/mp4' && r.codecs.startsWith('mp4a.'))).toBe(true);
    for (const r of reps) {
      expect(r.segmentS).toBeGreaterThanOrEqual(2);
      expect(r.segmentS).toBeLessThanOrEqual(4);
    }
    expect(isoDurationS(/mediaPresentationDuration="([^"]+)"/.exec(mpd)![1]!)).toBeGreaterThanOrEqual(60);
  });

  it(`every video segment is within ±${SEGMENT_SIZE_TOLERANCE * 100}% of its rung's nominal bandwidth`, () => {
    const durationS = isoDurationS(/mediaPresentationDuration="([^"]+)"/.exec(mpd)![1]!);
    const off: string[] = [];
    let checked = 0;
    for (const rep of representations(mpd).filter((r) => r.mimeType === 'video/mp4')) {
      const count = Math.ceil(durationS / rep.segmentS - 1e-9);
      for (let n = 1; n <= count; n++) {
        const file = join(dir, `seg-${rep.id}-${String(n).padStart(5, '0')}.m4s`);
        const seconds = Math.min(rep.segmentS, durationS - (n - 1) * rep.segmentS);
        const kbps = (statSync(file).size * 8) / seconds / 1000;
        const ratio = kbps / (rep.bandwidth / 1000);
        checked++;
        if (Math.abs(ratio - 1) > SEGMENT_SIZE_TOLERANCE) off.push(`${file}: ${kbps.toFixed(0)} kbps (${ratio.toFixed(2)}×)`);
      }
    }
    expect(checked).toBeGreaterThanOrEqual(DEFAULT_LADDER.rungs.length * (DEFAULT_LADDER.durationS / DEFAULT_LADDER.segmentS));
    expect(off).toEqual([]);
  });
});

describe('serving the ladder', () => {
  let origin: RunningOrigin;
  const base = '/media/default';
  beforeAll(async () => {
    origin = await startTestOrigin(join(dir, '..'), { pacing: 'kernel' });
  });
  afterAll(() => origin.close());

  it('manifest: application/dash+xml, revalidated, CORS', async () => {
    const res = await get(origin, `${base}/manifest.mpd`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/dash\+xml/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body.toString()).toBe(mpd);
  });

  it('segments: video/iso.segment, cached, Server-Timing readable cross-origin', async () => {
    const res = await get(origin, `${base}/seg-0-00001.m4s?${cmcdQuery(3000)}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('video/iso.segment');
    expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
    expect(res.headers['timing-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-expose-headers'])).toMatch(/Server-Timing/);
    expect(parseServerTiming(String(res.headers['server-timing']))).toMatchObject({ requestedRtpKbps: 3000, mechanism: 'kernel' });
    expect(res.body.equals(readFileSync(join(dir, 'seg-0-00001.m4s')))).toBe(true);
  });

  it('CORS preflight admits the CMCD headers', async () => {
    const res = await get(origin, `${base}/seg-0-00001.m4s`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(String(res.headers['access-control-allow-headers'])).toMatch(/CMCD-Status/);
  });

  it('Range: 206 with the asked bytes; HEAD: the length, no body', async () => {
    const file = readFileSync(join(dir, 'seg-4-00002.m4s'));
    const ranged = await get(origin, `${base}/seg-4-00002.m4s`, { headers: { Range: 'bytes=1000-1999' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers['content-range']).toBe(`bytes 1000-1999/${file.length}`);
    expect(ranged.body.equals(file.subarray(1000, 2000))).toBe(true);
    const head = await get(origin, `${base}/seg-4-00002.m4s`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(file.length);
    expect(head.headers['accept-ranges']).toBe('bytes');
    expect(head.body.length).toBe(0);
  });

  it('a missing file is 404', async () => {
    expect((await get(origin, `${base}/seg-9-00001.m4s`)).status).toBe(404);
  });

  it('publishes each finished response as a Server-Sent Event', async () => {
    const events: DeliveryRecord[] = [];
    let contentType = '';
    const sse = request(`${origin.url}${RECORD_EVENTS_PATH}`, { agent: false }, (res) => {
      contentType = String(res.headers['content-type']);
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        buffer += text;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map(block.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]));
          if (fields.get('event') === RECORD_EVENT) events.push(JSON.parse(fields.get('data')!) as DeliveryRecord);
        }
      });
    });
    sse.on('error', () => {});
    sse.end();
    await waitFor(() => origin.pacing.records.subscriberCount === 1);
    const path = `${base}/seg-1-00003.m4s`;
    const res = await get(origin, `${path}?${cmcdQuery(2000)}`);
    await waitFor(() => events.some((e) => e.path === path));
    sse.destroy();
    expect(contentType).toMatch(/^text\/event-stream/);
    const record = events.find((e) => e.path === path)!;
    expect(record).toMatchObject({
      status: 200,
      bytes: res.body.length,
      requestedRtpKbps: 2000,
      appliedPaceKbps: 2000,
      mechanism: 'kernel',
      aborted: false,
    });
    expect(record.achievedKbps).toBeGreaterThan(0);
    // The stream's listener goes when the client does.
    await waitFor(() => origin.pacing.records.subscriberCount === 0);
  });
});

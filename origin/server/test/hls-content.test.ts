/** The HLS playlists generated beside the DASH ladder: valid for the same segment files, and how the origin serves them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  ensureContent,
  HLS_MASTER_NAME,
  parseMediaPlaylist,
  parseMultivariantPlaylist,
  type HlsMediaPlaylist,
  type HlsMultivariant,
} from '@sammy/test-content';
import type { RunningOrigin } from '../src/server.js';
import { get, startTestOrigin } from './helpers.js';

/** The same bound the DASH test puts on each segment against its rung's nominal bandwidth. */
const SEGMENT_SIZE_TOLERANCE = 0.15;

let dir: string;
let master: HlsMultivariant;
const media = new Map<string, HlsMediaPlaylist>();
beforeAll(async () => {
  ({ dir } = await ensureContent({ progress: false }));
  master = parseMultivariantPlaylist(readFileSync(join(dir, HLS_MASTER_NAME), 'utf8'));
  for (const uri of [...master.variants.map((v) => v.uri), ...master.renditions.flatMap((r) => (r.uri ? [r.uri] : []))]) {
    media.set(uri, parseMediaPlaylist(readFileSync(join(dir, uri), 'utf8')));
  }
});

const audioUri = () => master.renditions.find((r) => r.attributes.TYPE === 'AUDIO')!.uri!;
const kbpsOf = (file: string, seconds: number) => (statSync(join(dir, file)).size * 8) / seconds / 1000;

describe('generated HLS playlists', () => {
  it('five H.264 variants from ~300 kbps to ≥ 6 Mbps, each with the AAC audio as an alternate rendition group', () => {
    expect(master.variants.length).toBe(5);
    const bandwidths = master.variants.map((v) => v.bandwidth);
    expect(bandwidths).toEqual([...bandwidths].sort((a, b) => a - b));
    expect(Math.min(...bandwidths) / 1000).toBeLessThanOrEqual(500);
    expect(Math.max(...bandwidths) / 1000).toBeGreaterThanOrEqual(6000);
    const audio = master.renditions.filter((r) => r.attributes.TYPE === 'AUDIO');
    expect(audio).toHaveLength(1);
    expect(audio[0]!.attributes.DEFAULT).toBe('YES');
    for (const v of master.variants) {
      expect(v.attributes.AUDIO).toBe(audio[0]!.attributes['GROUP-ID']);
      expect(v.attributes.CODECS).toMatch(/^avc1\.[0-9a-f]{6},mp4a\.40\.2$/);
      expect(v.attributes.RESOLUTION).toMatch(/^\d+x\d+$/);
    }
  });

  it('every media playlist is VOD fMP4: an EXT-X-MAP init segment, segments within the target duration, ≥ 60 s, an end', () => {
    for (const [uri, p] of media) {
      expect(p.endList, uri).toBe(true);
      expect(p.mapUri, uri).toMatch(/^init-\d+\.m4s$/);
      expect(p.targetDurationS, uri).toBe(4);
      expect(p.segments.length, uri).toBe(15);
      // RFC 8216: each EXTINF, rounded to an integer, is at most the target duration.
      for (const s of p.segments) expect(Math.round(s.durationS), `${uri} ${s.uri}`).toBeLessThanOrEqual(p.targetDurationS);
      expect(
        p.segments.reduce((sum, s) => sum + s.durationS, 0),
        uri,
      ).toBeCloseTo(60, 1);
    }
  });

  it('every file a playlist names exists, non-empty, and is a segment of the DASH ladder (the same files, not a copy)', () => {
    const mpd = readFileSync(join(dir, 'manifest.mpd'), 'utf8');
    expect(mpd).toContain('media="seg-$RepresentationID$-$Number%05d$.m4s"');
    let named = 0;
    for (const [uri, p] of media) {
      for (const file of [p.mapUri!, ...p.segments.map((s) => s.uri)]) {
        expect(existsSync(join(dir, file)), `${uri} names ${file}`).toBe(true);
        expect(statSync(join(dir, file)).size, file).toBeGreaterThan(0);
        expect(file).toMatch(/^(init-\d+|seg-\d+-\d{5})\.m4s$/);
        named++;
      }
    }
    expect(named).toBe(6 * 16);
  });

  it(`each variant's BANDWIDTH (video + audio) is within ±${SEGMENT_SIZE_TOLERANCE * 100}% of its peak segment bitrate`, () => {
    const audio = media.get(audioUri())!;
    const audioPeakKbps = Math.max(...audio.segments.map((s) => kbpsOf(s.uri, s.durationS)));
    for (const v of master.variants) {
      const p = media.get(v.uri)!;
      const peakKbps = Math.max(...p.segments.map((s) => kbpsOf(s.uri, s.durationS))) + audioPeakKbps;
      expect(
        Math.abs(peakKbps / (v.bandwidth / 1000) - 1),
        `${v.uri}: peak ${peakKbps.toFixed(0)} kbps, BANDWIDTH ${v.bandwidth}`,
      ).toBeLessThanOrEqual(SEGMENT_SIZE_TOLERANCE);
    }
  });
});

describe('serving the HLS playlists', () => {
  let origin: RunningOrigin;
  const base = '/media/default';
  beforeAll(async () => {
    origin = await startTestOrigin(join(dir, '..'), { pacing: 'kernel' });
  });
  afterAll(() => origin.close());

  it('playlists: application/vnd.apple.mpegurl, revalidated (no-cache) like the MPD, CORS', async () => {
    for (const path of [HLS_MASTER_NAME, ...media.keys()]) {
      const res = await get(origin, `${base}/${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type'], path).toBe('application/vnd.apple.mpegurl');
      expect(res.headers['cache-control'], path).toBe('no-cache');
      expect(res.headers['access-control-allow-origin'], path).toBe('*');
      expect(res.body.toString(), path).toBe(readFileSync(join(dir, path), 'utf8'));
    }
  });

  it('the segments they name: video/iso.segment, cached', async () => {
    const p = media.get(audioUri())!;
    for (const file of [p.mapUri!, p.segments[0]!.uri]) {
      const res = await get(origin, `${base}/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('video/iso.segment');
      expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
    }
  });
});

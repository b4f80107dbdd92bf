/**
 * Video segments fetched again, from the origin's delivery records: every fetch beyond the first of a
 * segment number counts, at any rung and aborted or not; audio, and requests before the play request,
 * do not; behind an edge or next to a second video session the records cannot tell.
 */
import { describe, expect, it } from 'vitest';
import type { DeliveryRecord } from 'sammy-pacing-protocol';
import type { Edge, Neighbour } from '../src/config.js';
import { runMetrics, videoRefetches, type RawRun } from '../src/measurements.js';
import { metricsCsv } from '../src/report.js';
import { runsFromCsv } from '../src/sweep-report.js';

const T0 = 1_000_000;
const HOST = 'http://10.247.2.2:8080';

/** A record of a path at a time; `ot` as the player's CMCD named it. */
const rec = (id: number, path: string, at: number, ot?: 'v' | 'a', aborted = false) =>
  ({ id, path, startedAt: at, ...(ot ? { objectType: ot } : {}), aborted }) as DeliveryRecord;

function run(records: DeliveryRecord[], edge: Edge = 'none', neighbour: Neighbour = 'udp'): RawRun {
  // The page saw the completed fetches: video from rep 4, audio from rep 5.
  const chunk = (path: string, mediaType: 'video' | 'audio', i: number) => ({
    url: `${HOST}${path}?CMCD=rtp%3D10000`,
    mediaType,
    start: T0 + i * 1000,
    end: T0 + i * 1000 + 400,
    bytes: 500_000,
    bitrateKbps: 3300,
    segmentSeconds: 4,
    server: { appliedPaceKbps: 10_000, mechanism: 'kernel' as const },
  });
  const chunks = [
    chunk('/media/lab/seg-4-00001.m4s', 'video', 1),
    chunk('/media/lab/seg-4-00002.m4s', 'video', 2),
    chunk('/media/lab/seg-5-00001.m4s', 'audio', 1),
  ];
  return {
    arm: 'sammy',
    neighbour,
    index: 1,
    cc: 'cubic',
    edge,
    endedAt: T0 + 10_000,
    queue: [],
    rateMbps: 40,
    records,
    errors: [],
    page: {
      arm: 'sammy',
      role: 'main',
      playRequestedAt: T0,
      startedAt: T0 + 500,
      stalls: [],
      qualities: [],
      chunks,
      paces: [],
      phases: [],
      errors: [],
      ended: false,
    },
  };
}

const RECORDS = [
  rec(1, '/media/lab/manifest.mpd', T0 + 10),
  rec(2, '/media/lab/init-4.m4s', T0 + 20),
  rec(3, '/media/lab/seg-4-00001.m4s', T0 + 100, 'v'),
  rec(4, '/media/lab/seg-5-00001.m4s', T0 + 110, 'a'),
  // Segment 2 at rung 2, thrown away, then again at rung 4: one fetched again.
  rec(5, '/media/lab/seg-2-00002.m4s', T0 + 1000, 'v', true),
  rec(6, '/media/lab/seg-4-00002.m4s', T0 + 1500, 'v'),
  // Audio fetched twice: not video.
  rec(7, '/media/lab/seg-5-00002.m4s', T0 + 1600),
  rec(8, '/media/lab/seg-5-00002.m4s', T0 + 1700),
  // Segment 3 three times (a rung the page never completed, known as video only by its CMCD): two again.
  rec(9, '/media/lab/seg-3-00003.m4s', T0 + 2000, 'v', true),
  rec(10, '/media/lab/seg-3-00003.m4s', T0 + 2100, 'v', true),
  rec(11, '/media/lab/seg-4-00003.m4s', T0 + 2500),
];

describe('video segments fetched again', () => {
  it('counts every fetch beyond the first of a video segment number, at any rung, aborted or not; never audio', () => {
    expect(videoRefetches(run(RECORDS))).toBe(3);
    expect(videoRefetches(run(RECORDS.slice(0, 4)))).toBe(0);
  });

  it('ignores what the origin served before the play request (a warm-up on the same server)', () => {
    expect(videoRefetches(run([rec(20, '/media/lab/seg-4-00001.m4s', T0 - 5000, 'v'), ...RECORDS.slice(0, 4)]))).toBe(0);
  });

  it('does not know behind an edge or next to a second video session', () => {
    expect(videoRefetches(run(RECORDS, 'varnish'))).toBeUndefined();
    expect(videoRefetches(run(RECORDS, 'none', 'video'))).toBeUndefined();
  });

  it('does not know when the records could not be read (an empty list is not "no refetch")', () => {
    expect(videoRefetches({ ...run([]), errors: ['records: Unexpected token'] })).toBeUndefined();
    expect(videoRefetches(run([]))).toBe(0);
  });

  it('reaches runs.csv and the sweep reads it back', () => {
    const m = runMetrics(run(RECORDS));
    expect(m.videoRefetches).toBe(3);
    expect(runsFromCsv(metricsCsv([m]))[0]?.videoRefetches).toBe(3);
  });
});

/**
 * Where the video RTT comes from: the origin's records when the players reach the origin directly,
 * the edge's Server-Timing behind an edge (whose records describe the edge's loopback backend hop).
 */
import { describe, expect, it } from 'vitest';
import type { DeliveryRecord } from 'sammy-pacing-protocol';
import type { Edge } from '../src/config.js';
import { runMetrics, videoRtt, type RawRun } from '../src/measurements.js';

const T0 = 1_000_000;

function run(edge: Edge): RawRun {
  const chunks = [1, 2, 3].map((i) => ({
    url: `http://10.247.2.2:8080/media/lab/seg-4-0000${i}.m4s?CMCD=rtp%3D10000`,
    mediaType: 'video',
    start: T0 + i * 1000,
    end: T0 + i * 1000 + 400,
    bytes: 500_000,
    bitrateKbps: 3300,
    segmentSeconds: 4,
    // What the serving process wrote into Server-Timing as the response started.
    server: { rttMs: 10 + i, appliedPaceKbps: 10_000, mechanism: edge === 'varnish' ? ('varnish' as const) : ('kernel' as const) },
  }));
  // The origin's records of the same paths: behind Varnish, its loopback fetches (RTT ≈ 0.1 ms).
  const records = chunks.map(
    (c, i) => ({ id: i, path: new URL(c.url).pathname, startedAt: c.start, rttMs: edge === 'varnish' ? 0.1 : 6 + i }) as DeliveryRecord,
  );
  return {
    arm: 'sammy',
    neighbour: 'none',
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

describe('video RTT source', () => {
  it("direct from the origin: its delivery records (after each segment's last byte)", () => {
    expect(videoRtt(run('none'))).toMatchObject({ rttMs: 7, source: 'records' });
  });

  it("behind Varnish: the edge's Server-Timing, never the backend hop's records", () => {
    const m = runMetrics(run('varnish'));
    expect(m.videoRttMs).toBe(12);
    expect(m.videoRttSource).toBe('server-timing');
    expect(m.medianPaceKbps).toBe(10_000);
  });
});

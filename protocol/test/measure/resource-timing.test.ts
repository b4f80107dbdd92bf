import { describe, expect, it } from 'vitest';
import { formatServerTiming, parseServerTiming, type ServerTimingEntry } from '../../src/index.js';
import { hasPacingReport, latestResourceEntry, readResourceReport, type ResourceTimingLike } from '../../src/measure/index.js';

/** Server-Timing entries as a browser parses the header a pacing server writes. */
function serverTiming(header: string): ServerTimingEntry[] {
  return header.split(', ').map((raw) => {
    const [name, ...params] = raw.split(';');
    const get = (k: string) => params.find((p) => p.startsWith(`${k}=`))?.slice(k.length + 1);
    return { name: name!, duration: Number(get('dur') ?? 0), description: get('desc') ?? '' };
  });
}

const ORIGIN = 1_763_000_000_000;

function entry(over: Partial<ResourceTimingLike>): ResourceTimingLike {
  return {
    name: 'http://o/media/seg-v1-00001.m4s',
    startTime: 100,
    requestStart: 110,
    responseStart: 130,
    responseEnd: 400,
    encodedBodySize: 250_000,
    serverTiming: [],
    ...over,
  };
}

describe('reading a response report from Resource Timing', () => {
  const header = formatServerTiming({
    requestedRtpKbps: 15_000,
    appliedPaceKbps: 15_000,
    mechanism: 'kernel',
    rttMs: 0.2,
    deliveryRateKbps: 14_876.5,
    retransmits: 3,
    congestionControl: 'cubic',
  });

  it('gives the same report as the header, with wall-clock times', () => {
    const r = readResourceReport(entry({ serverTiming: serverTiming(header) }), ORIGIN);
    expect(r.report).toEqual(parseServerTiming(header));
    expect(r).toMatchObject({
      url: 'http://o/media/seg-v1-00001.m4s',
      requestedAt: ORIGIN + 110,
      respondedAt: ORIGIN + 130,
      finishedAt: ORIGIN + 400,
      bytes: 250_000,
    });
  });

  it('falls back to the fetch start when the browser hides request details', () => {
    const r = readResourceReport(entry({ requestStart: 0, responseStart: 0, encodedBodySize: 0, serverTiming: undefined }), ORIGIN);
    expect(r.requestedAt).toBe(ORIGIN + 100);
    expect(r.respondedAt).toBe(ORIGIN + 100);
    expect(r.bytes).toBeUndefined();
    expect(r.report).toEqual({});
  });

  it('tells a pacing server’s response from any other', () => {
    expect(hasPacingReport(entry({ serverTiming: serverTiming(header) }))).toBe(true);
    expect(hasPacingReport(entry({ serverTiming: [{ name: 'cdn-cache', duration: 0, description: 'HIT' }] }))).toBe(false);
    expect(hasPacingReport(entry({ serverTiming: undefined }))).toBe(false);
  });
});

describe('finding a request’s entry', () => {
  const withoutQuery = (u: string) => u.split('?')[0]!;
  const entries = [
    entry({ name: 'http://o/a.m4s?CMCD=rtp%3D1000', startTime: 1 }),
    entry({ name: 'http://o/b.m4s', startTime: 2 }),
    entry({ name: 'http://o/a.m4s?CMCD=rtp%3D2000', startTime: 3 }),
  ];

  it('takes the newest entry whose key matches', () => {
    expect(latestResourceEntry(entries, 'http://o/a.m4s', withoutQuery)?.startTime).toBe(3);
    expect(latestResourceEntry(entries, 'http://o/b.m4s')?.startTime).toBe(2);
  });

  it('finds nothing for an unknown URL, or without the key that ignores the query', () => {
    expect(latestResourceEntry(entries, 'http://o/c.m4s', withoutQuery)).toBeUndefined();
    expect(latestResourceEntry(entries, 'http://o/a.m4s')).toBeUndefined();
  });
});

/** Malformed input is answered correctly, never with a crash, and the server keeps serving others. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_PACE_KBPS, DEFAULT_MIN_PACE_KBPS, parseServerTiming, type PacingReport } from 'sammy-pacing-protocol';
import { DEFAULT_MAX_HEADER_BYTES, type RunningOrigin } from './helpers.js';
import { MAX_CMCD_PAYLOAD_BYTES } from 'sammy-pacing-protocol';
import { cmcdQuery, get, makeMediaDir, expectPacedAt, startTestOrigin, type Fetched } from './helpers.js';

const media = makeMediaDir([8000]);
// The origin serves media.dir/test at /media; a file beside it must stay out of reach.
const SECRET = 'sammy-secret-beside-the-media-dir';
writeFileSync(join(media.dir, 'secret.txt'), SECRET);
const manifest = readFileSync(join(media.dir, 'test', 'manifest.mpd'));
const segment = readFileSync(join(media.dir, 'test', 'seg-8000.m4s'));
afterAll(() => media.remove());

let origin: RunningOrigin;
beforeAll(async () => {
  origin = await startTestOrigin(join(media.dir, 'test'), { pacing: 'kernel' });
});
afterAll(() => origin.close());

function report(res: Fetched): PacingReport {
  return parseServerTiming(String(res.headers['server-timing'] ?? ''));
}

/** After each bad request, an ordinary one is still served in full. */
async function expectStillServing(): Promise<void> {
  const res = await get(origin, '/media/manifest.mpd');
  expect(res.status).toBe(200);
  expect(res.body.equals(manifest)).toBe(true);
}

/**
 * rtp values (as they appear inside the CMCD payload), the pace they must lead to (undefined = ignored,
 * unpaced) and what Server-Timing then says: why unpaced, or how clamped.
 */
const RTP_CASES: ReadonlyArray<[string, string, number | undefined, string]> = [
  ['negative', 'rtp=-2000', undefined, 'sammy-pace;dur=0;desc="none: rtp not positive"'],
  ['zero', 'rtp=0', undefined, 'sammy-pace;dur=0;desc="none: rtp not positive"'],
  ['NaN', 'rtp=NaN', undefined, 'sammy-pace;dur=0;desc="none: rtp not a number"'],
  ['1e309 (not a structured-field number)', 'rtp=1e309', undefined, 'sammy-pace;dur=0;desc="none: CMCD malformed"'],
  ['non-numeric token', 'rtp=abc', undefined, 'sammy-pace;dur=0;desc="none: rtp not a number"'],
  ['a string', 'rtp="3000"', undefined, 'sammy-pace;dur=0;desc="none: rtp not a number"'],
  ['empty', 'rtp=', undefined, 'sammy-pace;dur=0;desc="none: '],
  ['absent', 'bl=2000', undefined, 'sammy-pace;dur=0;desc="none: rtp absent"'],
  ['huge: clamped to the maximum', 'rtp=99999999999', DEFAULT_MAX_PACE_KBPS, 'sammy-rtp;dur=99999999999;desc="lowered to ceiling"'],
  ['tiny: raised to the minimum', 'rtp=1', DEFAULT_MIN_PACE_KBPS, 'sammy-rtp;dur=1;desc="raised to floor"'],
  // CMCD is an RFC 8941 dictionary: a repeated key's last value wins.
  ['duplicated key: the last wins', 'rtp=2000,rtp=4000', 4000, 'sammy-rtp;dur=4000, '],
];

describe.each(['query', 'header'] as const)('rtp in %s mode', (mode) => {
  it.each(RTP_CASES)('%s (%s) is answered 200 in full, Server-Timing saying why', async (_name, payload, pace, says) => {
    const res =
      mode === 'query'
        ? get(origin, `/media/manifest.mpd?CMCD=${encodeURIComponent(payload)}`)
        : get(origin, '/media/manifest.mpd', { headers: { 'CMCD-Status': payload } });
    const { status, body } = await res;
    expect(status).toBe(200);
    expect(body.equals(manifest)).toBe(true);
    const header = String((await res).headers['server-timing']);
    expect(header).toContain(says);
    const r = report(await res);
    if (pace === undefined) {
      expect(r.mechanism).toBe('none');
      expect(r.unpacedReason).toBeDefined();
      expect(r.requestedRtpKbps).toBeUndefined();
    } else {
      expect(r).toMatchObject({ appliedPaceKbps: pace, mechanism: 'kernel' });
      expect(r.unpacedReason).toBeUndefined();
    }
    await expectStillServing();
  });
});

describe('malformed requests', () => {
  it('two CMCD query parameters: ignored, served unpaced', async () => {
    const res = await get(origin, `/media/manifest.mpd?${cmcdQuery(2000)}&${cmcdQuery(4000)}`);
    expect(res.status).toBe(200);
    expect(report(res)).toMatchObject({ mechanism: 'none', unpacedReason: 'cmcd_repeated' });
    await expectStillServing();
  });

  it('broken percent-encoding in the CMCD parameter: ignored, served', async () => {
    const res = await get(origin, '/media/manifest.mpd?CMCD=rtp%3D20%ZZ00');
    expect(res.status).toBe(200);
    expect(res.body.equals(manifest)).toBe(true);
    expect(report(res)).toMatchObject({ mechanism: 'none', unpacedReason: 'cmcd_malformed' });
    await expectStillServing();
  });

  it('broken percent-encoding in the path: 400', async () => {
    const res = await get(origin, `/media/%E0%A4%A.m4s?${cmcdQuery(2000)}`);
    expect(res.status).toBe(400);
    await expectStillServing();
  });

  it.each([
    '/media/../secret.txt',
    '/media/%2e%2e/secret.txt',
    '/media/..%2fsecret.txt',
    '/media/%2E%2E%2Fsecret.txt',
    '/media/test/..%2f..%2fsecret.txt',
  ])('traversal %s is refused and reveals nothing', async (path) => {
    const res = await get(origin, `${path}?${cmcdQuery(2000)}`);
    // express.static answers 403 to a `..` it sees; a path whose `..` takes it out of /media matches no route: 404.
    expect([403, 404]).toContain(res.status);
    expect(res.body.toString()).not.toContain(SECRET);
    await expectStillServing();
  });

  it('a traversal inside the CMCD parameter never reaches a path', async () => {
    const res = await get(origin, `/media/manifest.mpd?CMCD=${encodeURIComponent('rtp=2000,sid="../../secret.txt"')}`);
    expect(res.status).toBe(200);
    expect(res.body.equals(manifest)).toBe(true);
    await expectStillServing();
  });

  it(`a 64 KB CMCD header is served with the CMCD ignored (heads up to ${DEFAULT_MAX_HEADER_BYTES / 1024} KB accepted)`, async () => {
    const junk = `sid="${'a'.repeat(64 * 1024)}"`;
    expect(junk.length).toBeGreaterThan(MAX_CMCD_PAYLOAD_BYTES);
    const res = await get(origin, '/media/manifest.mpd', { headers: { 'CMCD-Session': junk, 'CMCD-Status': 'rtp=2000' } });
    expect(res.status).toBe(200);
    expect(res.body.equals(manifest)).toBe(true);
    expect(report(res)).toMatchObject({ mechanism: 'none', unpacedReason: 'cmcd_too_large' });
    await expectStillServing();
  });

  it('a head larger than the limit is answered 431', async () => {
    const res = await get(origin, '/media/manifest.mpd', {
      headers: { 'CMCD-Session': `sid="${'a'.repeat(DEFAULT_MAX_HEADER_BYTES)}"` },
    }).catch((err: Error) => err);
    // Node answers 431 and closes; the client may see the answer or the reset, depending on timing.
    if (!(res instanceof Error)) expect(res.status).toBe(431);
    await expectStillServing();
  });
});

describe('HEAD and Range on paced responses', () => {
  it('HEAD: headers with the full length and the pace, no body, no wait', async () => {
    const started = performance.now();
    const res = await get(origin, `/media/seg-8000.m4s?${cmcdQuery(2000)}`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(Number(res.headers['content-length'])).toBe(segment.length);
    expect(res.body.length).toBe(0);
    expect(report(res)).toMatchObject({ appliedPaceKbps: 2000, mechanism: 'kernel' });
    // Pacing a 1.2 MB body at 2 Mbps would take 4.8 s; a HEAD has none to pace.
    expect(performance.now() - started).toBeLessThan(1000);
    await expectStillServing();
  });

  it('Range: 206 with exactly the asked bytes, delivered at the pace', async () => {
    const [from, to] = [100_000, 100_000 + 1024 * 1024 - 1];
    const res = await get(origin, `/media/seg-8000.m4s?${cmcdQuery(8000)}`, { headers: { Range: `bytes=${from}-${to}` } });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${from}-${to}/${segment.length}`);
    expect(res.body.equals(segment.subarray(from, to + 1))).toBe(true);
    expectPacedAt(res.rateKbps, 8000);
    await expectStillServing();
  });

  it('unsatisfiable Range: 416', async () => {
    const res = await get(origin, `/media/seg-8000.m4s?${cmcdQuery(2000)}`, { headers: { Range: `bytes=${segment.length + 10}-` } });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${segment.length}`);
    await expectStillServing();
  });
});

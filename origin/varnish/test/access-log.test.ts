/**
 * The access log an operator runs beside sammy.vcl: varnishncsa with sammy-ncsa.format, read from a real
 * varnishd's shared log after real paced and unpaced responses. Each media line says the rtp asked for,
 * the pace applied (kbps), the bytes and how long the response took.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyBytesFor } from '../../middleware/test/helpers.js';
import { startVarnish, type RunningVarnish } from '../src/varnishd.js';
import { get, warmMssAgent } from './edge-client.js';
import { cmcdQuery, expectRateAt, startMediaOrigin, type TestOrigin } from './edge-fixture.js';

const FORMAT_FILE = fileURLToPath(new URL('../sammy-ncsa.format', import.meta.url));
const KBPS = 8000;

let origin: TestOrigin;
let varnish: RunningVarnish;
beforeAll(async () => {
  origin = await startMediaOrigin([KBPS]);
  varnish = await startVarnish({ backendPort: origin.origin.port });
});
afterAll(async () => {
  await varnish?.close();
  await origin?.remove();
});

interface LogLine {
  request: string;
  status: number;
  bytes: number;
  firstByteSeconds: number;
  durationUs: number;
  rtp: string;
  pace: number;
  handling: string;
}

/** varnishncsa with the format file over what the shared log holds (-d: from its start, then exit), segments only. */
function accessLog(): LogLine[] {
  const r = spawnSync('varnishncsa', ['-n', varnish.workdir, '-d', '-f', FORMAT_FILE, '-q', 'ReqURL ~ "^/media/test/seg-"'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (r.error) throw new Error(`varnishncsa: ${r.error.message} (apt-get install varnish)`);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const m = /^\S+ \[[^\]]+\] "([^"]*)" (\d+) (\d+|-) (\S+) (\d+) rtp=(\S+) pace=(\S+) (\S+)$/.exec(line);
      if (!m) throw new Error(`unparsed access-log line: ${line}`);
      return {
        request: m[1]!,
        status: Number(m[2]),
        bytes: m[3] === '-' ? 0 : Number(m[3]),
        firstByteSeconds: Number(m[4]),
        durationUs: Number(m[5]),
        rtp: m[6]!,
        pace: Number(m[7]),
        handling: m[8]!,
      };
    });
}

describe('the varnishncsa access log (sammy-ncsa.format)', () => {
  it('records the rtp, the applied pace, the bytes and the time of paced and unpaced media responses', async () => {
    const agent = await warmMssAgent(varnish, '/media/test/warm.m4s');
    try {
      const paced = await get(varnish, `/media/test/seg-${KBPS}.m4s?${cmcdQuery(KBPS)}`, { agent });
      expectRateAt(paced.rateKbps, KBPS);
      const unpaced = await get(varnish, `/media/test/seg-${KBPS}.m4s`, { agent });
      expect(unpaced.status).toBe(200);
      const bad = await get(varnish, `/media/test/seg-${KBPS}.m4s?${cmcdQuery('abc')}`, { agent });
      expect(bad.status).toBe(200);
    } finally {
      agent.destroy();
    }
    const lines = accessLog();
    // %r is the request as the client sent it, CMCD and all.
    expect(lines.map((l) => [new URL(l.request.split(' ')[1]!).search, l.rtp, l.handling])).toEqual([
      [`?${cmcdQuery(KBPS)}`, String(KBPS), 'miss'],
      ['', '-', 'hit'],
      [`?${cmcdQuery('abc')}`, '-', 'hit'],
    ]);
    const [paced, unpaced, bad] = lines as [LogLine, LogLine, LogLine];
    const bytes = bodyBytesFor(KBPS);
    for (const l of lines) expect(l).toMatchObject({ status: 200, bytes });
    // The pace the socket holds: the vmod's 1024-byte/s units, never below the rtp, less than one unit above.
    expect(paced.pace).toBeGreaterThanOrEqual(KBPS);
    expect(paced.pace - KBPS).toBeLessThan(1024 / 125);
    expect(unpaced.pace).toBe(0);
    expect(bad.pace).toBe(0);
    // Varnish's time ends when it hands the last byte to the socket, whose send buffer (autotuned up to
    // tcp_wmem's 4 MB) still holds most of a paced body: never longer than the delivery at the pace.
    const pacedSeconds = (bytes * 8) / (KBPS * 1000);
    expect(paced.durationUs / 1e6).toBeLessThanOrEqual(pacedSeconds * 1.1);
    expect(paced.firstByteSeconds).toBeLessThanOrEqual(paced.durationUs / 1e6);
  });
});

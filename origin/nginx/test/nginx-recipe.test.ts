/**
 * The nginx recipe with a real nginx in front of the reference origin, on loopback: limit_rate from the
 * CMCD rtp each request carries (userspace, so measured at the recipe's own accuracy), CMCD kept out of
 * the cache key and the upstream request, the same rtp rules as the other edges.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MIN_PACE_KBPS, parseServerTiming } from 'sammy-pacing-protocol';
import { integerAbove, integerBelow, renderSammyMaps, SAMMY_MAPS_CONF } from '../src/sammy-maps.js';
import { startNginx, type RunningNginx } from '../src/nginx.js';
import { get, MssAgent, warmMssAgent, type Fetched } from '../../varnish/test/edge-client.js';
import { cmcdQuery, startMediaOrigin, waitFor, type TestOrigin } from '../../varnish/test/edge-fixture.js';
import { MALFORMED, q, VALID } from '../../varnish/test/cmcd-cases.js';

const RATES = [2000, 8000, 40_000] as const;
const MAX_KBPS = 60_000;
/**
 * A cap must hold: a transfer at most 10% fast. limit_rate writes a chunk, then sleeps chunk ÷ rate,
 * so a late timer (CPU load) makes a transfer slow, never fast: on a loaded 2-core machine 40 Mbps
 * arrived at 0.64×. The floor only tells a limit in the wrong unit (8× for bytes and bits) from
 * lateness; the recipe's accuracy is a benchmark figure (README, "Accuracy"), not a test's.
 */
const NGINX_FAST_TOLERANCE = 0.1;
const WRONG_LIMIT_BELOW = 0.5;

describe('sammy-maps.conf', () => {
  it('is what src/sammy-maps.ts generates with protocol’s defaults (run `npm run generate -w @sammy/nginx`)', () => {
    expect(readFileSync(SAMMY_MAPS_CONF, 'utf8')).toBe(renderSammyMaps());
  });

  it('its integer comparisons agree with arithmetic', () => {
    for (const bound of [100, 1024, 8000, 60_000, 99_999, 1_000_000, 17_179_860]) {
      const above = new RegExp(`^${integerAbove(bound)}$`);
      const below = new RegExp(`^${integerBelow(bound)}$`);
      for (const n of [
        0, 1, 9, 99, 100, 101, 999, 1000, 1023, 1024, 1025, 7999, 8000, 8001, 59_999, 60_000, 60_001, 99_998, 99_999, 100_000, 999_999,
        1_000_000, 1_000_001, 17_179_859, 17_179_860, 17_179_861, 99_999_999, 123_456_789,
      ]) {
        expect({ n, bound, above: above.test(String(n)) }).toEqual({ n, bound, above: n > bound });
        expect({ n, bound, below: below.test(String(n)) }).toEqual({ n, bound, below: n < bound });
      }
    }
  });

  it('rejects a maximum below the minimum', () => {
    expect(() => renderSammyMaps({ minPaceKbps: 2000, maxPaceKbps: 1000 })).toThrow(/maximum pace/);
  });
});

let origin: TestOrigin;
let nginx: RunningNginx;

beforeAll(async () => {
  origin = await startMediaOrigin([...RATES, MAX_KBPS]);
  nginx = await startNginx({ backendPort: origin.origin.port, maxPaceKbps: MAX_KBPS });
});

afterAll(async () => {
  await nginx?.close();
  await origin?.remove();
});

function expectPacedAt(r: Fetched, kbps: number): void {
  expect(r.status).toBe(200);
  expect(r.rateKbps).toBeGreaterThan(kbps * WRONG_LIMIT_BELOW);
  expect(r.rateKbps).toBeLessThan(kbps * (1 + NGINX_FAST_TOLERANCE));
}

describe('limit_rate through nginx', () => {
  for (const kbps of RATES) {
    for (const mode of ['query', 'header'] as const) {
      it(`${kbps} kbps, ${mode} mode: the cache miss and the cache hit arrive no faster than rtp +10% (and not at a wrong unit's rate)`, async () => {
        const agent = await warmMssAgent(nginx, '/media/test/warm.m4s');
        try {
          const path = `/media/test/seg-${kbps}.m4s?variant=${mode}`;
          const fetch = () =>
            mode === 'query'
              ? get(nginx, `${path}&${cmcdQuery(kbps)}`, { agent })
              : get(nginx, path, { agent, headers: { 'CMCD-Status': `rtp=${kbps}` } });
          const miss = await fetch();
          expect(miss.headers['x-cache']).toBe('MISS');
          expectPacedAt(miss, kbps);
          const hit = await fetch();
          expect(hit.headers['x-cache']).toBe('HIT');
          expectPacedAt(hit, kbps);
          expect(parseServerTiming(String(hit.headers['server-timing']))).toMatchObject({
            requestedRtpKbps: kbps,
            appliedPaceKbps: kbps,
            mechanism: 'userspace',
          });
        } finally {
          agent.destroy();
        }
      });
    }
  }

  it('keep-alive: a limited response, then one without rtp on the same connection, which is not limited', async () => {
    const agent = await warmMssAgent(nginx, '/media/test/warm.m4s');
    try {
      const paced = await get(nginx, `/media/test/seg-8000.m4s?variant=keepalive&${cmcdQuery(8000)}`, { agent });
      expectPacedAt(paced, 8000);
      const next = await get(nginx, '/media/test/seg-8000.m4s?variant=keepalive', { agent });
      expect(next.localPort).toBe(paced.localPort);
      expect(next.rateKbps).toBeGreaterThan(20 * 8000);
      expect(String(next.headers['server-timing'])).toBe('sammy-pace;dur=0;desc=none');
    } finally {
      agent.destroy();
    }
  });
});

describe('one cache object whatever the CMCD payload; the origin never sees CMCD', () => {
  it('different CMCD query payloads and headers hit the same object, fetched once, unpaced', async () => {
    const agent = new MssAgent();
    try {
      const before = origin.origin.pacing.records.list().length;
      const path = '/media/test/warm.m4s?variant=cache-key';
      const payloads = ['bl=21300,br=3200,rtp=15000', 'bl=4000,rtp=22000,sid="6e2f"', 'ot=v,rtp=1800'];
      const results: Fetched[] = [];
      for (const p of payloads) results.push(await get(nginx, `${path}&CMCD=${encodeURIComponent(p)}`, { agent }));
      results.push(await get(nginx, path, { agent, headers: { 'CMCD-Status': 'rtp=9000', 'CMCD-Object': 'br=3200' } }));
      results.push(await get(nginx, `/media/test/warm.m4s?CMCD=${encodeURIComponent('rtp=5000')}&variant=cache-key`, { agent }));
      expect(results.map((r) => r.headers['x-cache'])).toEqual(['MISS', 'HIT', 'HIT', 'HIT', 'HIT']);
      await waitFor(() => origin.origin.pacing.records.list().length > before);
      const records = origin.origin.pacing.records.list().slice(before);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ path: '/media/test/warm.m4s', mechanism: 'none' });
      expect(records[0]!.requestedRtpKbps).toBeUndefined();
    } finally {
      agent.destroy();
    }
  });

  it('CMCD is removed from the upstream URL, other parameters are kept; lower-case cmcd is an ordinary parameter', async () => {
    const agent = new MssAgent();
    try {
      const a = await get(nginx, `/media/test/warm.m4s?a=1&CMCD=${encodeURIComponent('rtp=5000')}&b=2`, { agent });
      const b = await get(nginx, '/media/test/warm.m4s?a=1&b=2', { agent });
      const c = await get(nginx, `/media/test/warm.m4s?CMCD=${encodeURIComponent('rtp=5000')}&a=1&b=2&CMCD=x`, { agent });
      expect([a.headers['x-cache'], b.headers['x-cache'], c.headers['x-cache']]).toEqual(['MISS', 'HIT', 'HIT']);
      const lower = await get(nginx, `/media/test/warm.m4s?a=1&b=2&cmcd=${encodeURIComponent('rtp=5000')}`, { agent });
      expect(lower.headers['x-cache']).toBe('MISS');
    } finally {
      agent.destroy();
    }
  });
});

async function timing(query: string, headers: Record<string, string> = {}) {
  const r = await get(nginx, `/media/test/manifest.mpd${query ? `?${query}` : ''}`, { headers });
  expect(r.status).toBe(200);
  return { st: parseServerTiming(String(r.headers['server-timing'])), raw: String(r.headers['server-timing']) };
}

describe('the same rtp rules as the other edges', () => {
  for (const [name, query, headers] of MALFORMED) {
    it(`malformed: ${name} is ignored`, async () => {
      const { raw } = await timing(query, headers);
      expect(raw).toBe('sammy-pace;dur=0;desc=none');
    });
  }
  for (const [name, query, headers, kbps] of VALID) {
    it(`${name}: limited to ${kbps} kbps`, async () => {
      const { st } = await timing(query, headers);
      expect(st).toMatchObject({ requestedRtpKbps: kbps, appliedPaceKbps: kbps, mechanism: 'userspace' });
    });
  }

  it('a fraction, or digits past the third significant one, round up (to three significant digits)', async () => {
    expect((await timing(q('rtp=15000.5'))).st).toMatchObject({ requestedRtpKbps: 15000.5, appliedPaceKbps: 15100 });
    expect((await timing(q('rtp=15049'))).st).toMatchObject({ requestedRtpKbps: 15049, appliedPaceKbps: 15100 });
    expect((await timing(q('rtp=13200'))).st).toMatchObject({ appliedPaceKbps: 13200 });
  });

  it('floor and maximum', async () => {
    expect((await timing(q('rtp=500'))).st).toMatchObject({ requestedRtpKbps: 500, appliedPaceKbps: DEFAULT_MIN_PACE_KBPS });
    expect((await timing(q('rtp=0.5'))).st).toMatchObject({ appliedPaceKbps: DEFAULT_MIN_PACE_KBPS });
    expect((await timing(q('rtp=200000'))).st).toMatchObject({ appliedPaceKbps: MAX_KBPS });
    expect((await timing(q('rtp=99999999999999999999999'))).st).toMatchObject({ appliedPaceKbps: MAX_KBPS });
    const agent = await warmMssAgent(nginx, '/media/test/warm.m4s');
    try {
      const r = await get(nginx, `/media/test/seg-${MAX_KBPS}.m4s?${q('rtp=400000')}`, { agent });
      expectPacedAt(r, MAX_KBPS);
    } finally {
      agent.destroy();
    }
  });
});

describe('the access log (log_format sammy in nginx.conf)', () => {
  /** The access-log lines of requests whose query carries `marker`. */
  function logLines(marker: string): Array<{
    request: string;
    status: number;
    bytes: number;
    seconds: number;
    rtp: string;
    pace: number;
    limitRate: number;
    cache: string;
  }> {
    return readFileSync(join(nginx.prefix, 'access.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes(marker))
      .map((line) => {
        const m = /^\S+ \[[^\]]+\] "([^"]*)" (\d+) (\d+) ([\d.]+) rtp=(\S*) pace=(\d+) limit_rate=(\d+) cache=(\S+)$/.exec(line);
        if (!m) throw new Error(`unparsed access-log line: ${line}`);
        return {
          request: m[1]!,
          status: Number(m[2]),
          bytes: Number(m[3]),
          seconds: Number(m[4]),
          rtp: m[5]!,
          pace: Number(m[6]),
          limitRate: Number(m[7]),
          cache: m[8]!,
        };
      });
  }

  it('records the rtp, the pace (kbps) and $limit_rate (bytes/s), the bytes and the time of each response', async () => {
    const agent = await warmMssAgent(nginx, '/media/test/warm.m4s');
    const path = '/media/test/seg-8000.m4s?log=access';
    try {
      const paced = await get(nginx, `${path}&${cmcdQuery(8000)}`, { agent });
      expect(paced.status).toBe(200);
      await get(nginx, path, { agent });
      await get(nginx, `${path}&${cmcdQuery('abc')}`, { agent });
      await get(nginx, `/media/test/manifest.mpd?log=access&${cmcdQuery(1)}`, { agent });
    } finally {
      agent.destroy();
    }
    // nginx writes the line when the response ends.
    await waitFor(() => logLines('log=access').length === 4);
    const [paced, unpaced, bad, floor] = logLines('log=access');
    const bytes = statSync(join(origin.mediaDir, 'test', 'seg-8000.m4s')).size;
    expect(paced).toMatchObject({ status: 200, bytes, rtp: '8000', pace: 8000, limitRate: 8000 * 125, cache: 'MISS' });
    // limit_rate meters the body in userspace: the last byte is written at about the pace (never much before).
    expect(paced!.seconds).toBeGreaterThanOrEqual(((bytes * 8) / 8_000_000) * 0.8);
    expect(unpaced).toMatchObject({ status: 200, bytes, rtp: '', pace: 0, limitRate: 0, cache: 'HIT' });
    expect(bad).toMatchObject({ rtp: '', pace: 0, limitRate: 0 });
    expect(floor).toMatchObject({ rtp: '1', pace: DEFAULT_MIN_PACE_KBPS, limitRate: DEFAULT_MIN_PACE_KBPS * 125 });
  });
});

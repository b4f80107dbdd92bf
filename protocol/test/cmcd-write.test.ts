import {
  CMCD_HEADER_FIELDS,
  CMCD_HEADER_MAP,
  CMCD_KEYS,
  fromCmcdHeaders,
  fromCmcdQuery,
  toCmcdHeaders,
  toCmcdQuery,
  validateCmcdRequest,
} from '@svta/cml-cmcd';
import { describe, expect, it } from 'vitest';
import { withoutCmcd } from '../src/cmcd-url.js';
import { cmcdHeaderOf, writeRtp } from '../src/cmcd-write.js';

const setRtpInUrl = (url: string, rtp: number | undefined) => writeRtp({ url, headers: {} }, rtp, 'query').url;

// What dash.js 5 writes for a video segment (CMCD v1), including its own rtp guess.
const DASH_DATA = {
  bl: 21300,
  br: 3000,
  d: 4000,
  mtp: 25400,
  nor: 'seg-6.m4s',
  ot: 'v',
  rtp: 2000,
  sf: 'd',
  sid: 'abc-123',
  st: 'v',
  tb: 6000,
} as const;
const dashUrl = () => `https://cdn.example/media/seg-5.m4s?token=a%2Fb&${toCmcdQuery(DASH_DATA as never, { version: 1 })}#t`;

describe('rtp in query mode', () => {
  it('replaces dash.js’s rtp inside the one CMCD parameter and leaves the rest alone', () => {
    const url = setRtpInUrl(dashUrl(), 15_000);
    expect(url.match(/CMCD=/g)).toHaveLength(1);
    expect(url.startsWith('https://cdn.example/media/seg-5.m4s?token=a%2Fb&CMCD=')).toBe(true);
    expect(url.endsWith('#t')).toBe(true);
    const data = fromCmcdQuery(new URL(url).searchParams);
    expect(data).toEqual({ ...DASH_DATA, rtp: 15_000 });
    expect(validateCmcdRequest({ url, headers: {} } as never).valid).toBe(true);
  });

  it('removes rtp when the request must carry none, keeping the other keys', () => {
    const url = setRtpInUrl(dashUrl(), undefined);
    const data = fromCmcdQuery(new URL(url).searchParams);
    expect(data.rtp).toBeUndefined();
    expect(data.br).toBe(3000);
  });

  it('adds a CMCD parameter when dash.js wrote none', () => {
    expect(setRtpInUrl('https://x/seg.m4s', 8000)).toBe('https://x/seg.m4s?CMCD=rtp%3D8000');
    expect(setRtpInUrl('https://x/seg.m4s?a=1', 8000)).toBe('https://x/seg.m4s?a=1&CMCD=rtp%3D8000');
  });

  it('does not touch a URL with nothing to change', () => {
    const url = 'https://x/manifest.mpd?CMCD=sid%3D%22s%22&b=2';
    expect(setRtpInUrl(url, undefined)).toBe(url);
  });

  it('drops a CMCD parameter that would be left empty', () => {
    expect(setRtpInUrl('https://x/seg.m4s?CMCD=rtp%3D500&a=1', undefined)).toBe('https://x/seg.m4s?a=1');
  });

  it('strips CMCD for reporting', () => {
    expect(withoutCmcd(dashUrl())).toBe('https://cdn.example/media/seg-5.m4s?token=a%2Fb#t');
  });
});

describe('rtp in header mode', () => {
  it('moves dash.js’s query payload into CMCD-* headers with rtp in CMCD-Status, keeping other headers', () => {
    const next = writeRtp({ url: dashUrl(), headers: { Range: 'bytes=0-99' } }, 15_000, 'header');
    expect(next.url).toBe('https://cdn.example/media/seg-5.m4s?token=a%2Fb#t');
    expect(next.headers['CMCD-Status']).toBe('rtp=15000');
    expect(next.headers.Range).toBe('bytes=0-99');
    expect(fromCmcdHeaders(next.headers)).toEqual({ ...DASH_DATA, rtp: 15_000 });
    expect(validateCmcdRequest({ url: next.url, headers: next.headers } as never).valid).toBe(true);
  });

  it('updates headers already in place', () => {
    const headers = toCmcdHeaders(DASH_DATA as never, { version: 1 });
    const next = writeRtp({ url: 'https://x/seg.m4s', headers }, 9_000, 'header');
    expect(fromCmcdHeaders(next.headers)).toEqual({ ...DASH_DATA, rtp: 9_000 });
  });

  it('removes rtp (and an emptied CMCD-Status) when none is due', () => {
    const next = writeRtp({ url: dashUrl(), headers: {} }, undefined, 'header');
    expect(next.headers['CMCD-Status']).toBeUndefined();
    expect(fromCmcdHeaders(next.headers).rtp).toBeUndefined();
    expect(fromCmcdHeaders(next.headers).br).toBe(3000);
    expect(next.url).not.toContain('CMCD');
  });

  it('moves a payload back to the query in query mode', () => {
    const next = writeRtp({ url: 'https://x/seg.m4s', headers: toCmcdHeaders({ br: 3000 } as never, { version: 1 }) }, 8000, 'query');
    expect(next.headers).toEqual({});
    expect(fromCmcdQuery(new URL(next.url).searchParams)).toEqual({ br: 3000, rtp: 8000 });
  });
});

describe('what the splice keeps', () => {
  it('keeps a CMCD v2 payload v2, and its inner lists and quoted commas intact', () => {
    const v2 = { br: [3000], nor: ['a,b.m4s'], ot: 'v', sid: 'x,y', v: 2 } as const;
    const url = setRtpInUrl(`https://x/seg.m4s?${toCmcdQuery(v2 as never, { version: 2 })}`, 12_000);
    const data = fromCmcdQuery(new URL(url).searchParams);
    expect(data).toEqual({ ...v2, rtp: 12_000 });
    expect(validateCmcdRequest({ url, headers: {} } as never).valid).toBe(true);
  });

  it('splits members only at commas outside strings and inner lists, escapes and parentheses in strings included', () => {
    const headers = { 'CMCD-Request': 'nor=("a),b" "c"), com.example-x="q\\",(r"', 'CMCD-Session': 'sid="s,\\"t"' };
    const next = writeRtp({ url: 'https://x/seg.m4s', headers }, 100, 'header');
    expect(next.headers).toEqual({
      'CMCD-Request': 'com.example-x="q\\",(r",nor=("a),b" "c")',
      'CMCD-Session': 'sid="s,\\"t"',
      'CMCD-Status': 'rtp=100',
    });
  });

  it('sends custom keys in CMCD-Request, as cml-cmcd does', () => {
    const next = writeRtp({ url: 'https://x/seg.m4s?CMCD=br%3D3000%2Ccom.example-k%3D1', headers: {} }, 5000, 'header');
    expect(next.headers).toEqual({ 'CMCD-Object': 'br=3000', 'CMCD-Request': 'com.example-k=1', 'CMCD-Status': 'rtp=5000' });
  });

  it('reads CMCD headers in any letter case', () => {
    const next = writeRtp({ url: 'https://x/seg.m4s', headers: { 'cmcd-object': 'br=3000', 'cmcd-status': 'rtp=100' } }, 7000, 'header');
    expect(next.headers).toEqual({ 'CMCD-Object': 'br=3000', 'CMCD-Status': 'rtp=7000' });
  });

  it('refuses an rtp that is not a positive integer, and an unknown mode', () => {
    for (const bad of [0, -100, 1500.5, NaN, Infinity]) expect(() => setRtpInUrl('https://x/s.m4s', bad)).toThrow(RangeError);
    expect(() => writeRtp({ url: 'https://x/s.m4s', headers: {} }, 100, 'json' as never)).toThrow(/'query' or 'header'/);
  });

  it('matches cml-cmcd’s own encoding of the same data', () => {
    const expected = toCmcdQuery({ ...DASH_DATA, rtp: 15_000 } as never, { version: 1 });
    expect(setRtpInUrl(dashUrl(), 15_000)).toBe(`https://cdn.example/media/seg-5.m4s?token=a%2Fb&${expected}#t`);
  });
});

describe('which header carries a key', () => {
  it('is cml-cmcd’s CMCD_HEADER_MAP for every key it maps, and CMCD-Request for any other', () => {
    const mapped = Object.entries(CMCD_HEADER_MAP as Record<string, string>);
    expect(mapped.length).toBeGreaterThan(30);
    for (const [key, header] of mapped) expect([key, cmcdHeaderOf(key)]).toEqual([key, header]);
    for (const key of (CMCD_KEYS as readonly string[]).filter((k) => !Object.hasOwn(CMCD_HEADER_MAP, k)))
      expect(cmcdHeaderOf(key)).toBe('CMCD-Request');
    for (const key of ['com.example-k', 'constructor', 'toString', '']) expect(cmcdHeaderOf(key)).toBe('CMCD-Request');
    expect(new Set(mapped.map(([, header]) => header))).toEqual(new Set(CMCD_HEADER_FIELDS));
  });
});

import { toCmcdHeaders, toCmcdQuery } from '@svta/cml-cmcd';
import { describe, expect, it } from 'vitest';
import { MAX_CMCD_PAYLOAD_BYTES, readRtp } from '../src/cmcd-read.js';
import { writeRtp } from '../src/cmcd-write.js';

const query = (payload: string) => `/m/seg.m4s?CMCD=${encodeURIComponent(payload)}`;

describe('readRtp', () => {
  it('reads rtp from the query, then from CMCD-Status', () => {
    expect(readRtp({ url: `/m/s.m4s?${toCmcdQuery({ br: 3000, rtp: 9000 } as never, { version: 1 })}` })).toEqual({
      kind: 'rtp',
      rtpKbps: 9000,
      source: 'query',
    });
    expect(readRtp({ url: '/m/s.m4s', headers: toCmcdHeaders({ br: 3000, rtp: 7000 } as never, { version: 1 }) })).toEqual({
      kind: 'rtp',
      rtpKbps: 7000,
      source: 'header',
    });
    // Node hands header names over in lower case, sometimes as arrays.
    expect(readRtp({ url: '/m/s.m4s', headers: { 'cmcd-status': ['rtp=6000'] } })).toMatchObject({ rtpKbps: 6000 });
    expect(readRtp({ url: query('rtp=5000'), headers: { 'cmcd-status': 'rtp=6000' } })).toMatchObject({ rtpKbps: 5000, source: 'query' });
  });

  it('reads what writeRtp writes, in both modes', () => {
    for (const mode of ['query', 'header'] as const) {
      const req = writeRtp({ url: query('br=3000,sid="s"'), headers: {} }, 12_300, mode);
      expect(readRtp(req)).toEqual({ kind: 'rtp', rtpKbps: 12_300, source: mode });
    }
  });

  it('tells "none" from "unusable"', () => {
    expect(readRtp({ url: '/m/s.m4s' })).toEqual({ kind: 'none' });
    expect(readRtp({ url: query('br=3000') })).toEqual({ kind: 'none' });
    expect(readRtp({ url: '/m/s.m4s#CMCD=rtp%3D100' })).toEqual({ kind: 'none' });
    for (const bad of ['rtp=-2000', 'rtp=0', 'rtp="3000"', 'rtp=abc', 'rtp=1e309', 'rtp=']) {
      expect(readRtp({ url: query(bad) }), bad).toMatchObject({ kind: 'invalid', source: 'query' });
    }
    expect(readRtp({ url: '/m/s.m4s?CMCD=rtp%3D100&CMCD=rtp%3D200' })).toMatchObject({
      kind: 'invalid',
      code: 'cmcd_repeated',
      reason: '2 CMCD query parameters',
    });
    expect(readRtp({ url: '/m/s.m4s?CMCD=%E0%A4%A' })).toMatchObject({ kind: 'invalid', source: 'query' });
    expect(readRtp({ url: '/', headers: { 'cmcd-status': 'rtp=x' } })).toMatchObject({
      kind: 'invalid',
      source: 'header',
      code: 'rtp_not_a_number',
    });
    expect(readRtp({ url: '/', headers: { 'cmcd-status': 'rtp=-5' } })).toMatchObject({ kind: 'invalid', code: 'rtp_not_positive' });
    expect(readRtp({ url: '/', headers: { 'cmcd-status': 'rtp=0' } })).toMatchObject({ kind: 'invalid', code: 'rtp_not_positive' });
  });

  it('does not decode oversized payloads', () => {
    const junk = `sid="${'a'.repeat(MAX_CMCD_PAYLOAD_BYTES)}",rtp=2000`;
    expect(readRtp({ url: query(junk) })).toMatchObject({
      kind: 'invalid',
      code: 'cmcd_too_large',
      reason: expect.stringMatching(/bytes/),
    });
    expect(readRtp({ url: '/', headers: { 'cmcd-session': junk, 'cmcd-status': 'rtp=2000' } })).toMatchObject({
      kind: 'invalid',
      source: 'header',
    });
  });
});

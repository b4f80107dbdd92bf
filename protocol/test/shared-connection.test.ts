import { describe, expect, it } from 'vitest';
import { decideConnectionPace, readCmcdRequest, type ConnectionPaceInput } from '../src/index.js';
import { isCmcdObjectType } from '../src/shared-connection.js';

const h2 = (over: Partial<ConnectionPaceInput>): ConnectionPaceInput => ({
  shared: true,
  requestPaceKbps: undefined,
  connectionPaceKbps: undefined,
  busy: false,
  ...over,
});

describe('decideConnectionPace', () => {
  it('(1) a busy paced shared connection is never unpaced by a request without rtp', () => {
    expect(decideConnectionPace(h2({ connectionPaceKbps: 15000, busy: true }))).toEqual({ paceKbps: 15000, reason: 'kept' });
  });
  it('(1) nor by a manifest or init segment without rtp, nor by a request without CMCD ot', () => {
    for (const objectType of ['m', 'i', undefined] as const) {
      expect(decideConnectionPace(h2({ connectionPaceKbps: 15000, busy: true, objectType }))).toEqual({ paceKbps: 15000, reason: 'kept' });
    }
  });
  it('(2) a media segment without rtp (a player in its initial phase: a seek, a stall) unpaces a busy connection', () => {
    for (const objectType of ['v', 'a', 'av'] as const) {
      expect(decideConnectionPace(h2({ connectionPaceKbps: 15000, busy: true, objectType }))).toEqual({
        paceKbps: undefined,
        reason: 'own',
      });
    }
  });
  it('(1) a media segment with a smaller rtp still keeps it', () => {
    expect(decideConnectionPace(h2({ requestPaceKbps: 1000, connectionPaceKbps: 15000, busy: true, objectType: 'a' }))).toEqual({
      paceKbps: 15000,
      reason: 'kept',
    });
  });
  it('(1) nor re-paced lower by a smaller rtp (audio beside video)', () => {
    expect(decideConnectionPace(h2({ requestPaceKbps: 1000, connectionPaceKbps: 15000, busy: true }))).toEqual({
      paceKbps: 15000,
      reason: 'kept',
    });
  });
  it('(1) a larger rtp raises it', () => {
    expect(decideConnectionPace(h2({ requestPaceKbps: 20000, connectionPaceKbps: 15000, busy: true }))).toEqual({
      paceKbps: 20000,
      reason: 'raised',
    });
  });
  it('(3) on an idle shared connection a request without rtp is unpaced', () => {
    expect(decideConnectionPace(h2({ connectionPaceKbps: 15000 }))).toEqual({ paceKbps: undefined, reason: 'own' });
  });
  it('(3) on an idle shared connection an rtp applies as asked, lower too', () => {
    expect(decideConnectionPace(h2({ requestPaceKbps: 4000, connectionPaceKbps: 15000 }))).toEqual({ paceKbps: 4000, reason: 'own' });
  });
  it("a busy but unpaced connection takes the request's rtp", () => {
    expect(decideConnectionPace(h2({ requestPaceKbps: 4000, busy: true }))).toEqual({ paceKbps: 4000, reason: 'own' });
    expect(decideConnectionPace(h2({ busy: true }))).toEqual({ paceKbps: undefined, reason: 'own' });
  });
  it('(4) HTTP/1.1: every response its own rtp, busy or not', () => {
    const h1 = { shared: false, connectionPaceKbps: 15000, busy: true } as const;
    expect(decideConnectionPace({ ...h1, requestPaceKbps: undefined })).toEqual({ paceKbps: undefined, reason: 'own' });
    expect(decideConnectionPace({ ...h1, requestPaceKbps: 2000 })).toEqual({ paceKbps: 2000, reason: 'own' });
  });
});

describe('readCmcdRequest', () => {
  it('reads rtp and ot from the query', () => {
    expect(readCmcdRequest({ url: '/v/1.m4s?CMCD=ot%3Dv%2Crtp%3D15000' })).toEqual({
      rtp: { kind: 'rtp', rtpKbps: 15000, source: 'query' },
      objectType: 'v',
    });
  });
  it('reads ot from the headers of a request without rtp (a manifest)', () => {
    expect(readCmcdRequest({ url: '/m.mpd', headers: { 'CMCD-Object': 'ot=m' } })).toEqual({ rtp: { kind: 'none' }, objectType: 'm' });
  });
  it('an ot in the query without rtp still lets the headers decide the rtp', () => {
    const r = readCmcdRequest({ url: '/a.m4s?CMCD=ot%3Da', headers: { 'CMCD-Status': 'rtp=900' } });
    expect(r.rtp).toEqual({ kind: 'rtp', rtpKbps: 900, source: 'header' });
  });
  it('an unknown ot is left out', () => {
    expect(readCmcdRequest({ url: '/x?CMCD=ot%3Dzz%2Crtp%3D100' }).objectType).toBeUndefined();
    expect(isCmcdObjectType('av')).toBe(true);
    expect(isCmcdObjectType('zz')).toBe(false);
  });
});

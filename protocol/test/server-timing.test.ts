import { describe, expect, it } from 'vitest';
import { formatServerTiming, parseServerTiming, type PacingReport } from '../src/index.js';

describe('Server-Timing', () => {
  it('round-trips a full report', () => {
    const report: PacingReport = {
      requestedRtpKbps: 15000,
      appliedPaceKbps: 15000,
      mechanism: 'kernel',
      congestionControl: 'cubic',
      rttMs: 5.123,
      minRttMs: 4.9,
      deliveryRateKbps: 14876.5,
      retransmits: 3,
      pacingRateKbps: 15000,
    };
    const header = formatServerTiming(report);
    expect(header).toContain('sammy-pace;dur=15000;desc=kernel');
    expect(parseServerTiming(header)).toEqual(report);
  });
  it('reports an unpaced response as pace 0 with its mechanism', () => {
    const header = formatServerTiming({ mechanism: 'none', rttMs: 1 });
    expect(parseServerTiming(header)).toEqual({ appliedPaceKbps: 0, mechanism: 'none', rttMs: 1 });
  });
  it('ignores metrics it does not know and malformed numbers', () => {
    expect(parseServerTiming('cdn-cache;desc=HIT, sammy-rtt;dur=abc, sammy-retrans;dur=2')).toEqual({ retransmits: 2 });
  });
  it('echoes the record id in sammy-id and reads back only plain non-negative integers', () => {
    const header = formatServerTiming({ mechanism: 'none', recordId: 4711 });
    expect(header).toContain('sammy-id;desc=4711');
    expect(parseServerTiming(header)).toMatchObject({ recordId: 4711 });
    for (const bad of ['', '-1', '1.5', '0x1f', '1e3', 'abc']) expect(parseServerTiming(`sammy-id;desc=${bad}`)).toEqual({});
    expect(formatServerTiming({ recordId: -1 })).toBe('');
    expect(formatServerTiming({ recordId: 1.5 })).toBe('');
  });
  it('never writes a congestion-control label that could break the header', () => {
    expect(formatServerTiming({ congestionControl: 'cubic, evil;dur=1' })).toBe('');
  });
});

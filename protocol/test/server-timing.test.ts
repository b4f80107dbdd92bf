import { describe, expect, it } from 'vitest';
import { formatServerTiming, parseServerTiming, UNPACED_REASONS, type PacingReport, type UnpacedReason } from '../src/index.js';

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

describe('Server-Timing reasons', () => {
  it('says why an unpaced response is unpaced, as a quoted desc after the mechanism, and reads it back', () => {
    const header = formatServerTiming({ mechanism: 'none', unpacedReason: 'rtp_not_a_number' });
    expect(header).toBe('sammy-pace;dur=0;desc="none: rtp not a number"');
    expect(parseServerTiming(header)).toEqual({ appliedPaceKbps: 0, mechanism: 'none', unpacedReason: 'rtp_not_a_number' });
  });
  it('writes every reason as an RFC 8941 quoted string with nothing a header splitter would cut', () => {
    for (const code of Object.keys(UNPACED_REASONS) as UnpacedReason[]) {
      const header = formatServerTiming({ mechanism: 'none', unpacedReason: code });
      expect(header).toMatch(/^sammy-pace;dur=0;desc="none: [\x20-\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+"$/);
      expect(parseServerTiming(header).unpacedReason).toBe(code);
    }
  });
  it('says how a clamped rtp was clamped on the sammy-rtp entry, and nothing for a paced one at its rtp', () => {
    const header = formatServerTiming({ requestedRtpKbps: 1, appliedPaceKbps: 1024, mechanism: 'kernel', rtpClamp: 'below_floor' });
    expect(header).toBe('sammy-rtp;dur=1;desc="raised to floor", sammy-pace;dur=1024;desc=kernel');
    expect(parseServerTiming(header)).toMatchObject({ rtpClamp: 'below_floor', mechanism: 'kernel' });
    expect(formatServerTiming({ requestedRtpKbps: 2000, appliedPaceKbps: 2000, mechanism: 'kernel', unpacedReason: 'rtp_absent' })).toBe(
      'sammy-rtp;dur=2000, sammy-pace;dur=2000;desc=kernel',
    );
  });
  it('ignores an unknown reason, writing and reading', () => {
    expect(formatServerTiming({ mechanism: 'none', unpacedReason: 'evil", x' as UnpacedReason })).toBe('sammy-pace;dur=0;desc=none');
    expect(parseServerTiming('sammy-pace;dur=0;desc="none: who knows"')).toEqual({ appliedPaceKbps: 0, mechanism: 'none' });
  });
});

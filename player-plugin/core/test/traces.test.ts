import { describe, expect, it } from 'vitest';
import {
  detectTraceFormat,
  formatMahimahi,
  formatSecondsMbps,
  meanKbps,
  parseTrace,
  TraceFormatError,
  TraceLink,
} from '../src/traces/index.js';

const lines = (...l: Array<string | number>) => l.join('\n') + '\n';

describe('parseTrace: mahimahi', () => {
  it('reads one 1500-byte opportunity per line: one per millisecond is 12 Mbit/s, the last timestamp the period', () => {
    const text = lines(...Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(detectTraceFormat(text)).toBe('mahimahi');
    const trace = parseTrace(text);
    expect(trace).toMatchObject({ format: 'mahimahi', periodSeconds: 1 });
    expect(trace.steps).toEqual([{ startSeconds: 0, kbps: 12_000 }]);
    expect(trace.opportunitiesMs).toHaveLength(1000);
    expect(meanKbps(trace)).toBeCloseTo(12_000, 6);
  });

  it('counts repeated timestamps as several opportunities, and bins them (default 100 ms)', () => {
    // 0–99 ms: two packets per ms (24 Mbit/s); 100–199 ms: none; the period ends at 200.
    const text = lines(...Array.from({ length: 100 }, (_, i) => `${i}\n${i}`), 200);
    const trace = parseTrace(text);
    expect(trace.periodSeconds).toBe(0.2);
    // The opportunity at the period is the next pass's instant 0, so it lands in the first bin.
    expect(trace.steps).toEqual([
      { startSeconds: 0, kbps: (201 * 12 * 1000) / 100 },
      { startSeconds: 0.1, kbps: 0 },
    ]);
    expect(parseTrace(text, { binMs: 50 }).steps.map((s) => s.kbps)).toEqual([(101 * 12 * 1000) / 50, (100 * 12 * 1000) / 50, 0]);
  });

  it('refuses what mahimahi refuses, naming the line', () => {
    expect(() => parseTrace(lines(5, 3))).toThrow(/trace:2: timestamps must not decrease \(mahimahi\): 3 after 5/);
    expect(() => parseTrace(lines(0, 0))).toThrow(/must last a nonzero time/);
    expect(() => parseTrace(lines(1, 2.5))).toThrow(/trace:2: expected a whole number of milliseconds \(mahimahi\), found "2.5"/);
    expect(() => parseTrace(lines(1, -2), { source: 'cell.trace' })).toThrow(/cell\.trace:2: expected a whole number/);
    expect(() => parseTrace(lines(1, '2 3'))).toThrow(TraceFormatError);
    expect(() => parseTrace(lines(1, '2 3'))).toThrow(
      /trace:2: expected one integer millisecond timestamp \(mahimahi\) like the lines before it, found 2 values/,
    );
  });
});

describe('parseTrace: [seconds Mbps]', () => {
  it('holds each rate until the next line, the last for the median gap, from time 0', () => {
    const trace = parseTrace(lines('# FCC-style', '', '10.0 1.5', '11.0\t3', '12.0 0.5', '13.5 2'));
    expect(trace.format).toBe('seconds-mbps');
    expect(trace.steps).toEqual([
      { startSeconds: 0, kbps: 1500 },
      { startSeconds: 1, kbps: 3000 },
      { startSeconds: 2, kbps: 500 },
      { startSeconds: 3.5, kbps: 2000 },
    ]);
    expect(trace.periodSeconds).toBe(4.5); // 3.5 + the median gap (1)
    expect(meanKbps(trace)).toBeCloseTo((1500 + 3000 + 500 * 1.5 + 2000) / 4.5, 6);
  });

  it('accepts CRLF line ends and commas; a single line is a constant link', () => {
    expect(parseTrace('0,8\r\n1,4\r\n').steps).toEqual([
      { startSeconds: 0, kbps: 8000 },
      { startSeconds: 1, kbps: 4000 },
    ]);
    expect(parseTrace('0 5\n')).toMatchObject({ periodSeconds: 1, steps: [{ startSeconds: 0, kbps: 5000 }] });
  });

  it('refuses malformed lines with their number', () => {
    expect(() => parseTrace(lines('0 1', '1 x'))).toThrow(/trace:2: expected two numbers, seconds and Mbit\/s, found "1 x"/);
    expect(() => parseTrace(lines('0 1', '0 2'))).toThrow(/trace:2: times must increase: 0 s after 0 s/);
    expect(() => parseTrace(lines('0 1', '1 -2'))).toThrow(/trace:2: a negative rate/);
    expect(() => parseTrace(lines('0 1', '1'))).toThrow(
      /trace:2: expected two numbers, seconds and Mbit\/s like the lines before it, found 1 values/,
    );
    expect(() => parseTrace(lines('0 0', '1 0'))).toThrow(/delivers nothing/);
  });
});

describe('parseTrace: either', () => {
  it('refuses an empty trace and lines of neither format', () => {
    expect(() => parseTrace('\n# nothing\n')).toThrow(/empty trace/);
    expect(() => parseTrace('1 2 3\n')).toThrow(
      /trace:1: expected one integer millisecond timestamp \(mahimahi\) or two numbers, seconds and Mbit\/s per line, found 3 values/,
    );
  });

  it('refuses options it does not know, of the wrong type, or a format it does not read, in the one options-error shape', () => {
    const trace = lines('0 1', '1 2');
    const refusal = (name: string, message: string) => expect.objectContaining({ name, message });
    expect(() => parseTrace(trace, { bin: 50 } as never)).toThrow(
      refusal('TypeError', "parseTrace: unknown option 'bin' (did you mean 'binMs'?); known: source, format, binMs"),
    );
    expect(() => parseTrace(trace, { binMs: '100' } as never)).toThrow(
      refusal('TypeError', 'parseTrace: binMs must be a number, got string "100"'),
    );
    expect(() => parseTrace(trace, 'mahimahi' as never)).toThrow(
      refusal('TypeError', 'parseTrace: options must be an object, got string "mahimahi"'),
    );
    expect(() => parseTrace(trace, { format: 'csv' } as never)).toThrow(
      refusal('RangeError', `parseTrace: format must be 'mahimahi' or 'seconds-mbps', got "csv"`),
    );
    expect(parseTrace(trace, { format: 'seconds-mbps', source: 'x', binMs: undefined }).steps).toHaveLength(2);
  });

  it('round-trips a capacity curve through both formats', () => {
    const steps = [0, 1, 2, 3].map((i) => ({ startSeconds: i, kbps: [6000, 30_000, 1500, 12_000][i]! }));
    const viaLines = parseTrace(formatSecondsMbps(steps));
    expect(viaLines.steps).toEqual(steps);
    expect(viaLines.periodSeconds).toBe(4);
    const viaMahimahi = parseTrace(formatMahimahi(steps, 4));
    expect(viaMahimahi.periodSeconds).toBe(4);
    expect(meanKbps(viaMahimahi) / meanKbps(viaLines)).toBeCloseTo(1, 2);
    // Per 100 ms bin the rate is the curve's to within one packet.
    const link = new TraceLink(viaMahimahi);
    for (const t of [0.55, 1.55, 2.55, 3.55]) expect(Math.abs(link.capacityKbps(t) - steps[Math.floor(t)]!.kbps)).toBeLessThanOrEqual(120);
  });
});

describe('TraceLink', () => {
  const steps = parseTrace(lines('0 8', '1 0', '2 4')); // 8 Mbit/s, an outage, 4 Mbit/s; period 3 s

  it('integrates min(capacity, cap) over the transfer, across steps and outages', () => {
    const link = new TraceLink(steps);
    expect(link.transferSeconds(0, 4000)).toBeCloseTo(0.5, 9);
    expect(link.transferSeconds(0, 4000, 2000)).toBeCloseTo(3, 9); // 2000 kbit in the first second, none in the outage, 2000 capped at 2 Mbit/s
    expect(link.transferSeconds(0.5, 8000)).toBeCloseTo(0.5 + 1 + 1, 9); // 4000 by 1 s, outage, 4000 at 4 Mbit/s
  });

  it('loops the trace, and starts at an offset into it', () => {
    const link = new TraceLink(steps);
    expect(link.transferSeconds(2, 4000 + 8000)).toBeCloseTo(2, 9); // the 4 Mbit/s second, then the looped 8 Mbit/s one
    expect(link.capacityKbps(3.5)).toBe(8000);
    expect(link.capacityKbps(300_001.5)).toBe(0);
    expect(new TraceLink(steps, 2).capacityKbps(0)).toBe(4000);
    expect(link.deliverableKbits(0, 6)).toBeCloseTo(2 * 12_000, 6);
    expect(link.deliverableKbits(0, 3, 5000)).toBeCloseTo(5000 + 4000, 6);
  });

  it('refuses a trace that delivers nothing and a rate cap of 0', () => {
    expect(() => new TraceLink({ format: 'seconds-mbps', periodSeconds: 1, steps: [{ startSeconds: 0, kbps: 0 }] })).toThrow(
      /delivers nothing/,
    );
    expect(() => new TraceLink(steps).transferSeconds(0, 1, 0)).toThrow(/positive rate cap/);
  });
});

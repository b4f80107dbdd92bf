/**
 * `--trace-scale FACTOR` without root (issue 39): the flag's refusals, every rate of a `[seconds
 * Mbps]` trace and every 1500-byte opportunity of a mahimahi trace scaled, the family and id marked
 * with the factor, and the scaled mean in the run's metrics and runs.csv.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { meanKbps, parseTrace } from 'sammy-pacing-core/traces';
import { parseCliArgs } from '../src/cli-options.js';
import type { BenchConfig } from '../src/config.js';
import type { RunMetrics } from '../src/measurements.js';
import { metricsCsv } from '../src/report.js';
import { parseTraceScale, scaleLabTrace, scaleTrace } from '../src/trace-scale.js';
import { capacityPerSecond, loadTrace, opportunitiesFor, sessionMeanMbps } from '../src/traces.js';

const dir = mkdtempSync(join(tmpdir(), 'sammy-lab-trace-scale-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `[seconds Mbps]`: 2 s at 6 Mbit/s, 2 s at 1.2, 2 s at 0.3: a volatile link of mean 2.5 Mbit/s. */
const STEPS = '0\t6\n2\t1.2\n4\t0.3\n';
/** mahimahi: an opportunity every ms for 1 s (12 Mbit/s), then every 10 ms for 1 s (1.2 Mbit/s); period 2000 ms. */
const MAHIMAHI =
  [...Array.from({ length: 1000 }, (_, i) => i + 1), ...Array.from({ length: 100 }, (_, i) => 1010 + i * 10)].join('\n') + '\n';

function file(family: string, name: string, text: string): string {
  mkdirSync(join(dir, family), { recursive: true });
  const path = join(dir, family, name);
  writeFileSync(path, text);
  return path;
}

function config(args: string[]): BenchConfig {
  const parsed = parseCliArgs(args);
  if (parsed.help) throw new Error('help');
  return parsed.config;
}

describe('--trace-scale', () => {
  it('takes a positive finite factor and refuses anything else, saying what it takes', () => {
    expect(parseTraceScale('0.55')).toBe(0.55);
    expect(parseTraceScale('2')).toBe(2);
    for (const bad of ['0', '-0.5', 'abc', '', 'Infinity', 'NaN', '1e400']) {
      expect(() => parseTraceScale(bad), bad).toThrow(/--trace-scale must be a positive finite number .*got "/);
    }
  });

  it('needs a trace, and is refused before any trace is read', () => {
    expect(() => config(['--trace-scale', '0.5'])).toThrow(
      /--trace-scale scales a trace-driven link; give --trace FILE or --traces DIR too/,
    );
    expect(() => config(['--trace', join(dir, 'missing'), '--trace-scale=-1'])).toThrow(/--trace-scale must be a positive finite number/);
  });

  it('scales every rate of the traces the bench runs; the family and id carry the factor; the peak check sees the scaled trace', () => {
    const path = file('nyc-lte', 'lirr', STEPS);
    const plain = config(['--trace', path]).traces![0]!;
    const scaled = config(['--trace', path, '--trace-scale', '0.5']).traces![0]!;
    expect([plain.id, plain.family, plain.scale]).toEqual(['nyc-lte/lirr', 'nyc-lte', undefined]);
    expect([scaled.id, scaled.family, scaled.scale, scaled.name, scaled.file]).toEqual([
      'nyc-lte×0.5/lirr',
      'nyc-lte×0.5',
      0.5,
      'lirr',
      path,
    ]);
    expect(scaled.trace.steps).toEqual([
      { startSeconds: 0, kbps: 3000 },
      { startSeconds: 2, kbps: 600 },
      { startSeconds: 4, kbps: 150 },
    ]);
    expect(scaled.meanMbps).toBeCloseTo(1.25, 9);
    expect(sessionMeanMbps(scaled.trace, 6)).toBeCloseTo(sessionMeanMbps(plain.trace, 6) * 0.5, 9);
    // The shape is the file's: the same steps at the same times, in the same ratios.
    expect(scaled.trace.periodSeconds).toBe(plain.trace.periodSeconds);
    // Scaled up past the delay line's 500 Mbit/s: refused, naming the file and the factor.
    expect(() => config(['--trace', path, '--trace-scale', '100'])).toThrow(/lirr × 100: peaks at 600 Mbit\/s/);
    // A whole folder: every trace, picked by --families first.
    file('oboe', 'o1', STEPS);
    const set = config(['--traces', dir, '--families', 'nyc-lte,oboe', '--trace-scale', '1.5']).traces!;
    expect(set.map((t) => t.id)).toEqual(['nyc-lte×1.5/lirr', 'oboe×1.5/o1']);
  });

  it('leaves a trace as it is at a factor of 1', () => {
    const t = loadTrace(file('fcc', 'f1', STEPS));
    expect(scaleLabTrace(t, 1)).toBe(t);
  });

  it('turns a scaled [seconds Mbps] trace into opportunities carrying the scaled rates, second by second', () => {
    const t = scaleTrace(parseTrace(STEPS), 0.5);
    // 3, 3, 0.6, 0.6, 0.15, 0.15 Mbit/s: 250, 250, 50, 50, 12.5, 12.5 packets (the opportunities' own rounding: within one packet).
    const perSecond = capacityPerSecond(opportunitiesFor(t, 6), 6);
    [3, 3, 0.6, 0.6, 0.15, 0.15].forEach((mbps, i) =>
      expect(Math.abs(perSecond[i]! - mbps), `second ${i}`).toBeLessThanOrEqual(0.012 + 1e-9),
    );
  });

  it('scales a mahimahi trace opportunity by opportunity, keeping its millisecond detail and its period', () => {
    const t = parseTrace(MAHIMAHI);
    const double = scaleTrace(t, 2);
    expect(double.opportunitiesMs).toHaveLength(2200);
    expect(double.opportunitiesMs!.slice(0, 4)).toEqual([1, 1, 2, 2]);
    expect(double.opportunitiesMs!.at(-1)).toBe(2000);
    const third = scaleTrace(t, 0.3);
    // Every opportunity of the original: 0.3 × i of them by then, rounded down (10 → 3, not 2.999… → 2).
    expect(third.opportunitiesMs!.filter((ms) => ms <= 10)).toEqual([4, 7, 10]);
    expect(third.opportunitiesMs!.filter((ms) => ms <= 1000)).toHaveLength(300);
    expect(third.opportunitiesMs!.filter((ms) => ms > 1000 && ms < 2000)).toHaveLength(29);
    // The period stays the last line even where the scaled trace has no opportunity at it.
    expect(third.opportunitiesMs!.at(-1)).toBe(2000);
    expect(third.periodSeconds).toBe(2);
    expect(meanKbps(third)).toBeCloseTo(meanKbps(t) * 0.3, 6);
    const [first, second] = capacityPerSecond(opportunitiesFor(third, 2), 2);
    // Within one packet (0.012 Mbit) of 3.6 and 0.36 Mbit/s: the 1000th opportunity falls on the next second's first ms.
    expect(Math.abs(first! - 12 * 0.3)).toBeLessThanOrEqual(0.012 + 1e-9);
    expect(Math.abs(second! - 1.2 * 0.3)).toBeLessThanOrEqual(0.012 + 1e-9);
    // One pass carries 0.3 × the original's 1100 packets (the one at the period counts for the next pass's first instant).
    expect(third.opportunitiesMs).toHaveLength(330);
  });

  it('refuses a factor that is not a positive finite number when called directly', () => {
    for (const bad of [0, -1, Number.NaN, Infinity]) expect(() => scaleTrace(parseTrace(STEPS), bad)).toThrow(RangeError);
  });

  it("puts the run's scale in runs.csv beside the scaled session mean", () => {
    const m = {
      arm: 'sammy',
      neighbour: 'udp',
      index: 1,
      trace: 'nyc-lte×0.5/lirr',
      family: 'nyc-lte×0.5',
      traceMbps: 1.25,
      traceScale: 0.5,
      rebufferCount: 0,
      rebufferSeconds: 0,
      videoChunks: 3,
      errors: 0,
    } as RunMetrics;
    const [head, row] = metricsCsv([m]).trim().split('\n') as [string, string];
    const cols = head.split(',');
    const cells = row.split(',');
    expect(cells[cols.indexOf('trace_scale')]).toBe('0.5');
    expect(cells[cols.indexOf('trace_mbps')]).toBe('1.25');
    expect(cells[cols.indexOf('family')]).toBe('"nyc-lte×0.5"');
  });
});

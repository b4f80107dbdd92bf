/**
 * Traces for the trace-driven bottleneck, without root: the CLI's --trace/--traces, families,
 * the conversion to mahimahi opportunities the delay line replays, the achieved-vs-trace figures,
 * and the delay line's own Go tests of its mm-link-style queue (lab/delay/link_test.go).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTrace } from 'sammy-pacing-core/traces';
import { invocationDir, parseCliArgs } from '../src/cli-options.js';
import { benchRunCount } from '../src/bench.js';
import { DEFAULT_TRACE_DURATION_SECONDS, TRACE_ARMS } from '../src/config.js';
import type { LinkSample } from '../src/delay-line.js';
import { linkAchieved, qualitySwitches, type RawRun } from '../src/measurements.js';
import { runTag, udpRate } from '../src/run.js';
import { LAB_DIR } from '../src/scripts.js';
import { capacityPerSecond, familyFromName, loadTraceDir, opportunitiesFor, selectTraces, sessionMeanMbps } from '../src/traces.js';

const dir = mkdtempSync(join(tmpdir(), 'sammy-lab-traces-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `[seconds Mbps]`: 2 s at 6 Mbit/s, 2 s at 1.2, 2 s at 0 (Pensieve/FCC style, tab-separated). */
const STEPS = '0.0\t6.0\n2.0\t1.2\n4.0\t0\n';
/** mahimahi: one opportunity every ms for 100 ms (12 Mbit/s), then one per 10 ms (1.2 Mbit/s), period 200 ms. */
const MAHIMAHI = [...Array.from({ length: 100 }, (_, i) => i + 1), ...Array.from({ length: 10 }, (_, i) => 110 + i * 10)].join('\n') + '\n';

function tree(): string {
  const root = join(dir, 'set');
  mkdirSync(join(root, 'hsdpa'), { recursive: true });
  mkdirSync(join(root, 'cell', 'deep'), { recursive: true });
  writeFileSync(join(root, 'hsdpa', 'norway_bus_1'), STEPS);
  writeFileSync(join(root, 'cell', 'deep', 'verizon.down'), MAHIMAHI);
  writeFileSync(join(root, 'oboe_trace_7.txt'), STEPS);
  writeFileSync(join(root, 'README.md'), '# not a trace\n');
  writeFileSync(join(root, 'LICENSE'), 'MIT\n');
  return root;
}

describe('--trace and --traces', () => {
  it('reads a folder: families from sub-folders, else the name prefix; README and LICENSE skipped; formats detected', () => {
    const root = tree();
    const traces = loadTraceDir(root);
    expect(traces.map((t) => [t.id, t.format])).toEqual([
      ['cell/verizon.down', 'mahimahi'],
      ['hsdpa/norway_bus_1', 'seconds-mbps'],
      ['oboe/oboe_trace_7.txt', 'seconds-mbps'],
    ]);
    expect(familyFromName('trace_939562_http---www.google_part7.log')).toBe('trace');
    const { config } = parseCliArgs(['--traces', root, '--duration', '30']) as { config: { traces: unknown[]; arms: string[] } };
    expect(config.traces).toHaveLength(3);
    // With traces the default arms are the four, pace-only among them.
    expect(config.arms).toEqual([...TRACE_ARMS]);
    // The UDP neighbour: 1/8 of each trace's mean (5 Mbit/s would fill a slow trace alone), unless --udp-mbps says.
    const withTraces = parseCliArgs(['--traces', root]);
    const fixed = parseCliArgs(['--traces', root, '--udp-mbps', '0.4']);
    const plain = parseCliArgs([]);
    if (withTraces.help || fixed.help || plain.help) throw new Error('help');
    const prepared = { lab: withTraces.config.traces![0]!, opportunitiesFile: '', sessionMeanMbps: 2.4 };
    expect(udpRate(withTraces.config, prepared)).toBeCloseTo(0.3, 9);
    expect(udpRate(fixed.config, prepared)).toBe(0.4);
    expect(udpRate(plain.config, undefined)).toBe(5);
  });

  it('takes one file, its family the folder holding it', () => {
    const root = tree();
    const parsed = parseCliArgs(['--trace', join(root, 'hsdpa', 'norway_bus_1'), '--arms', 'unpaced,sammy']);
    if (parsed.help) throw new Error('help');
    expect(parsed.config.traces?.map((t) => t.id)).toEqual(['hsdpa/norway_bus_1']);
    expect(parsed.config.arms).toEqual(['unpaced', 'sammy']);
  });

  it('reads relative paths from where npm run was typed (INIT_CWD), not the workspace folder npm runs the script in', () => {
    tree();
    // `npm run bench:lab -- --traces ../x` from the repository's root: npm sets INIT_CWD there and runs in lab/.
    expect(invocationDir({ INIT_CWD: dir })).toBe(dir);
    expect(invocationDir({})).toBe(process.cwd());
    const parsed = parseCliArgs(['--traces', 'set', '--families', 'hsdpa', '--results', 'out', '--media-dir', 'media'], dir);
    if (parsed.help) throw new Error('help');
    expect(parsed.config.traces?.map((t) => t.id)).toEqual(['hsdpa/norway_bus_1']);
    expect(parsed.config.traceSource).toBe(join(dir, 'set'));
    expect(parsed.config.resultsDir).toBe(join(dir, 'out'));
    expect(parsed.config.mediaDir).toBe(join(dir, 'media'));
    const one = parseCliArgs(['--trace', join('set', 'hsdpa', 'norway_bus_1')], dir);
    if (one.help) throw new Error('help');
    expect(one.config.traces?.map((t) => t.file)).toEqual([join(dir, 'set', 'hsdpa', 'norway_bus_1')]);
    expect(() => parseCliArgs(['--traces', 'set'], join(dir, 'elsewhere'))).toThrow(/not a folder/);
  });

  it('refuses what cannot run, naming the file and line', () => {
    const root = tree();
    const bad = join(dir, 'bad');
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, 'three-columns'), '0 1.5 7\n1 2.0 7\n');
    writeFileSync(join(dir, 'decreasing'), '0 1\n2 1\n1 1\n');
    expect(() => parseCliArgs(['--trace', join(dir, 'missing')])).toThrow(/--trace .*missing: cannot read it/);
    expect(() => parseCliArgs(['--trace', join(bad, 'three-columns')])).toThrow(/three-columns:1: expected .* found 3 values/);
    expect(() => parseCliArgs(['--trace', join(dir, 'decreasing')])).toThrow(/decreasing:3: times must increase/);
    expect(() => parseCliArgs(['--traces', join(root, 'hsdpa', 'norway_bus_1')])).toThrow(/not a folder/);
    const empty = join(dir, 'empty');
    mkdirSync(empty, { recursive: true });
    writeFileSync(join(empty, 'README.md'), 'x');
    expect(() => parseCliArgs(['--traces', empty])).toThrow(/no trace files/);
    expect(() => parseCliArgs(['--trace', join(root, 'oboe_trace_7.txt'), '--traces', root])).toThrow(/cannot go together/);
    expect(() => parseCliArgs(['--trace', join(root, 'oboe_trace_7.txt'), '--rate', '20'])).toThrow(
      /--rate sets the constant bottleneck.*leave --rate out/,
    );
    writeFileSync(join(dir, 'huge'), '0 900\n1 900\n');
    expect(() => parseCliArgs(['--trace', join(dir, 'huge')])).toThrow(/peaks at 900 Mbit\/s/);
    expect(() => parseCliArgs(['--arms', 'pace-only,nope'])).toThrow(/unknown arm "nope"/);
  });
});

describe('the family run as one command (issue 33)', () => {
  /** Five traces of one family at 1–5 Mbit/s (named against their order), one of another. */
  function families(): string {
    const root = join(dir, 'families');
    mkdirSync(join(root, 'lte'), { recursive: true });
    mkdirSync(join(root, 'fcc'), { recursive: true });
    for (const [name, mbps] of [
      ['e', 1],
      ['d', 2],
      ['c', 3],
      ['b', 4],
      ['a', 5],
    ] as const)
      writeFileSync(join(root, 'lte', name), `0 ${mbps}\n100 ${mbps}\n`);
    writeFileSync(join(root, 'fcc', 'x'), '0 4\n100 4\n');
    return root;
  }
  const config = (args: string[]) => {
    const parsed = parseCliArgs(args);
    if (parsed.help) throw new Error('help');
    return parsed.config;
  };

  it('runs several buffer targets in one invocation, and sessions long enough for a steady state by default', () => {
    const root = families();
    const c = config(['--traces', root, '--buffer-seconds', '30,240', '--runs', '3', '--neighbours', 'udp,tcp']);
    expect(c.bufferTargets).toEqual([30, 240]);
    expect(c.bufferSeconds).toBe(30);
    expect(c.durationSeconds).toBe(DEFAULT_TRACE_DURATION_SECONDS);
    // 6 traces × 4 arms × 2 neighbours × 3 runs × 2 buffer targets.
    expect(benchRunCount(c)).toBe(6 * 4 * 2 * 3 * 2);
    // One target is the one bufferSeconds, as before; without traces the session default stays 40 s.
    expect(config(['--buffer-seconds', '30']).bufferTargets).toBeUndefined();
    expect(config([]).durationSeconds).toBe(40);
    expect(config(['--traces', root, '--duration', '45']).durationSeconds).toBe(45);
    expect(() => config(['--buffer-seconds', '30,x'])).toThrow(/--buffer-seconds must be a positive number, got x/);
    // A run's file names its buffer target only when the bench runs several.
    expect(runTag('sammy', 'udp', 2, { id: 'lte/a' }, 240)).toBe('sammy-udp-lte_a-b240-2');
    expect(runTag('sammy', 'udp', 2, { id: 'lte/a' })).toBe('sammy-udp-lte_a-2');
  });

  it('picks families and a spread of traces per family', () => {
    const root = families();
    expect(config(['--traces', root, '--families', 'lte']).traces!.map((t) => t.id)).toEqual(['lte/a', 'lte/b', 'lte/c', 'lte/d', 'lte/e']);
    // By mean over the session: e 1, d 2, c 3, b 4, a 5 Mbit/s. One: the median; two: the middle of each half; names stay in order.
    expect(config(['--traces', root, '--traces-per-family', '1']).traces!.map((t) => t.id)).toEqual(['fcc/x', 'lte/c']);
    expect(config(['--traces', root, '--families', 'lte', '--traces-per-family', '2']).traces!.map((t) => t.id)).toEqual([
      'lte/b',
      'lte/d',
    ]);
    expect(selectTraces(loadTraceDir(root), { perFamily: 3, sessionSeconds: 30 }).map((t) => t.id)).toEqual([
      'fcc/x',
      'lte/a',
      'lte/c',
      'lte/e',
    ]);
    expect(() => config(['--traces', root, '--families', 'lte,5g'])).toThrow(
      /--families: no family "5g" in the traces \(there are fcc, lte\)/,
    );
    expect(() => config(['--families', 'lte'])).toThrow(/--families picks traces of --traces DIR/);
    expect(() => config(['--traces', root, '--traces-per-family', '1.5'])).toThrow(/whole number/);
  });
});

describe('opportunities for the delay line (mahimahi format, as mm-link reads it)', () => {
  it('turns [seconds Mbps] into 1500-byte opportunities at the rate, per second', () => {
    const t = parseTrace(STEPS);
    const ops = opportunitiesFor(t, 60);
    // One pass: 6 s; the last line is the period.
    expect(ops.at(-1)).toBe(6000);
    for (let i = 1; i < ops.length; i++) expect(ops[i]!).toBeGreaterThanOrEqual(ops[i - 1]!);
    // 6 Mbit/s = 500 opportunities per second, 1.2 Mbit/s = 100, 0 = none (plus the period's own line).
    const perSecond = capacityPerSecond(ops, 6).map((m) => Math.round(m * 10) / 10);
    expect(perSecond).toEqual([6, 6, 1.2, 1.2, 0, 0]);
    // Looped over a longer session: the same again.
    expect(
      capacityPerSecond(ops, 12)
        .slice(6)
        .map((m) => Math.round(m * 10) / 10),
    ).toEqual([6.0, 6, 1.2, 1.2, 0, 0]);
    expect(sessionMeanMbps(t, 6)).toBeCloseTo((6 * 2 + 1.2 * 2) / 6, 6);
  });

  it('hands a mahimahi trace over as it is, and cuts a long trace at the session window', () => {
    const t = parseTrace(MAHIMAHI);
    expect(opportunitiesFor(t, 60)).toEqual(MAHIMAHI.trim().split('\n').map(Number));
    const cut = opportunitiesFor(t, 0.15);
    expect(cut.at(-1)).toBe(150);
    expect(cut.filter((ms) => ms <= 150)).toEqual(cut);
    const long = parseTrace(Array.from({ length: 1000 }, (_, i) => `${i} 8`).join('\n'));
    const ops = opportunitiesFor(long, 90);
    expect(ops.at(-1)).toBe(90_000);
    expect(capacityPerSecond(ops, 90).every((m) => Math.abs(m - 8) < 0.02)).toBe(true);
  });
});

describe('achieved link rate against the trace', () => {
  it("bins the delay line's counters per second, and calls a second saturated when every sample had a backlog", () => {
    const t0 = 1_000_000;
    const samples: LinkSample[] = [];
    for (let i = 0; i <= 30; i++) {
      // 12 Mbit/s capacity = 1 500 000 B/s; the first 2 s the link is always backlogged and releases all of it, the third it idles at half.
      const s = i / 10;
      const cap = 1_500_000 * s;
      const rel = s <= 2 ? cap : 3_000_000 + 750_000 * (s - 2);
      samples.push({
        t: t0 + i * 100,
        id: 1,
        traceMs: i * 100,
        capB: cap,
        relB: rel,
        backlogB: s <= 2 ? 3000 : 0,
        waitMs: 0,
        drops: 0,
        dropB: 0,
        lateMaxUs: i,
        sojournMaxUs: 0,
      });
    }
    const run = {
      trace: {
        id: 'x/y',
        name: 'y',
        family: 'x',
        file: '',
        format: 'mahimahi',
        meanMbps: 12,
        sessionMeanMbps: 12,
        linkId: 1,
        startedAt: t0,
        opportunities: 1,
        periodMs: 1,
      },
      link: samples,
      queue: [],
      endedAt: t0 + 10_000,
    } as unknown as RawRun;
    const a = linkAchieved(run)!;
    expect(a.traceMbps).toBeCloseTo(12, 6);
    expect(a.releasedMbps).toBeCloseTo(((3_000_000 + 750_000) * 8) / 3 / 1e6, 6);
    expect(a.perSecond.map((b) => [b.t, Math.round(b.traceMbps), Math.round(b.releasedMbps), b.saturated])).toEqual([
      [0, 12, 12, true],
      [1, 12, 12, true],
      [2, 12, 6, false],
    ]);
    expect(a.saturatedBins).toBe(2);
    expect(a.saturatedRatioMedian).toBeCloseTo(1, 9);
    expect(a.releaseLateMaxUs).toBe(30);
  });

  it('counts quality switches as rendered changes after the first', () => {
    const p = {
      qualities: [
        { t: 1, kbps: 1000 },
        { t: 2, kbps: 1000 },
        { t: 3, kbps: 3300 },
        { t: 4, kbps: 2300 },
        { t: 99, kbps: 300 },
      ],
    };
    expect(qualitySwitches(p as never, 50)).toBe(2);
  });
});

function findGo(): string | undefined {
  for (const go of [process.env.GO, 'go', '/usr/local/go/bin/go']) {
    if (!go) continue;
    try {
      execFileSync(go, ['version'], { stdio: 'ignore' });
      return go;
    } catch {
      /* next */
    }
  }
  return undefined;
}

const go = findGo();
if (!go) console.log('\n[lab traces] go test of lab/delay SKIPPED: no Go\n');

describe.skipIf(!go)("the delay line's trace-driven link (go test, no root: the queue is pure)", () => {
  it('passes its Go tests: opportunities, lost capacity, bytes across packets, drop-tail, loop, idle skip', () => {
    const out = execFileSync(go!, ['test', '-count=1', '.'], {
      cwd: join(LAB_DIR, 'delay'),
      encoding: 'utf8',
      env: { ...process.env, CGO_ENABLED: '0' },
    });
    expect(out).toMatch(/^ok/m);
  }, 120_000);
});

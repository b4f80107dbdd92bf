/**
 * The arms without root: the CLI's --arms, each arm's player and control, the page URL the bench
 * opens for it (player, HLS playlist), the page modules' arms against config.ts, and the report's
 * grouping by player with each arm against its own player's unpaced control.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCliArgs } from '../src/cli-options.js';
import { ARM_LABELS, ARM_SPECS, ARMS, armsByPlayer, DEFAULT_ARMS, PLAYERS, TRACE_ARMS, type Arm, type BenchConfig } from '../src/config.js';
import type { RunMetrics } from '../src/measurements.js';
import { hlsMasterPath, LAB_MANIFEST_PATH } from '../src/media.js';
import { renderMarkdown, type BenchEnvironment } from '../src/report.js';
import { pageUrl } from '../src/run.js';
import { LAB_DIR } from '../src/scripts.js';

const NEW_ARMS: Arm[] = ['shaka-unpaced', 'shaka-sammy', 'hlsjs-unpaced', 'hlsjs-sammy', 'sammy-paper'];

function config(args: string[]): BenchConfig {
  const parsed = parseCliArgs(args);
  if (parsed.help) throw new Error('help');
  return parsed.config;
}

describe('--arms', () => {
  it("takes the Shaka, hls.js and paper-preset arms by name; the default stays the paper's four", () => {
    expect(config(['--arms', NEW_ARMS.join(',')]).arms).toEqual(NEW_ARMS);
    expect(config([]).arms).toEqual(['unpaced', 'dashjs-rtp', 'flat-cap', 'sammy']);
    expect(DEFAULT_ARMS.every((a) => ARM_SPECS[a].player === 'dashjs')).toBe(true);
    expect(() => config(['--arms', 'shaka-paced'])).toThrow(/unknown arm "shaka-paced" \(choose from .*shaka-sammy.*hlsjs-sammy/);
  });

  it("takes issue 39's four by name, and runs them by default on traces", () => {
    const four: Arm[] = ['unpaced', 'sammy', 'sammy-neighbour-first', 'dashjs-rtp'];
    expect(config(['--arms', four.join(',')]).arms).toEqual(four);
    expect(TRACE_ARMS).toEqual(four);
  });
});

describe('the arms in config.ts', () => {
  it('gives each arm a player and a control of the same player, which is its own control', () => {
    for (const arm of ARMS) {
      const { player, control } = ARM_SPECS[arm];
      expect(ARM_SPECS[control].player, `${arm}'s control`).toBe(player);
      expect(ARM_SPECS[control].control, `${arm}'s control's control`).toBe(control);
      expect(ARM_SPECS[control].judged, `${arm}'s control is not judged`).toBe(false);
    }
    expect(Object.fromEntries(NEW_ARMS.map((a) => [a, [ARM_SPECS[a].player, ARM_SPECS[a].control]]))).toEqual({
      'shaka-unpaced': ['shaka', 'shaka-unpaced'],
      'shaka-sammy': ['shaka', 'shaka-unpaced'],
      'hlsjs-unpaced': ['hlsjs', 'hlsjs-unpaced'],
      'hlsjs-sammy': ['hlsjs', 'hlsjs-unpaced'],
      'sammy-paper': ['dashjs', 'unpaced'],
    });
    expect(ARMS.filter((a) => ARM_SPECS[a].judged)).toEqual([
      'sammy',
      'sammy-paper',
      'sammy-neighbour-first',
      'sammy-fast-switch',
      'shaka-sammy',
      'shaka-sammy-neighbour-first',
      'hlsjs-sammy',
      'hlsjs-sammy-neighbour-first',
    ]);
    // Issue 39's preset on each player, against that player's unpaced control.
    expect(
      ['sammy-neighbour-first', 'shaka-sammy-neighbour-first', 'hlsjs-sammy-neighbour-first'].map((a) => ARM_SPECS[a as Arm].control),
    ).toEqual(['unpaced', 'shaka-unpaced', 'hlsjs-unpaced']);
  });

  it('labels every arm distinctly, the two dash.js Sammy arms by their preset', () => {
    expect(new Set(Object.values(ARM_LABELS)).size).toBe(ARMS.length);
    expect(ARM_LABELS.sammy).toMatch(/defaults.*PRESETS\.bufferAware/);
    expect(ARM_LABELS['sammy-paper']).toMatch(/PRESETS\.paper.*the paper’s pace design/);
    expect(ARM_LABELS['sammy-neighbour-first']).toMatch(/PRESETS\.neighbourFirst/);
  });

  it('orders arms by player, keeping the order asked for within each', () => {
    expect(armsByPlayer(['hlsjs-sammy', 'shaka-sammy', 'sammy', 'hlsjs-unpaced', 'unpaced', 'shaka-unpaced'])).toEqual([
      'sammy',
      'unpaced',
      'shaka-sammy',
      'shaka-unpaced',
      'hlsjs-sammy',
      'hlsjs-unpaced',
    ]);
  });

  it('matches the page: each player module handles exactly the arms config.ts gives its player', () => {
    for (const player of PLAYERS) {
      const source = readFileSync(join(LAB_DIR, 'page', `${player}.ts`), 'utf8');
      const cases = [...source.matchAll(/^\s*case '([a-z-]+)':/gm)].map((m) => m[1]).sort();
      expect(cases, `page/${player}.ts`).toEqual(ARMS.filter((a) => ARM_SPECS[a].player === player).sort());
    }
  });
});

describe('the page URL of an arm', () => {
  const ctx = { config: config(['--runs', '1']), capKbps: 13_200 };
  const params = (arm: Arm) => new URL(pageUrl(arm, 'main', ctx)).searchParams;

  it('names the player; hls.js gets the multivariant playlist beside the MPD', () => {
    expect(params('shaka-sammy').get('player')).toBe('shaka');
    expect(params('shaka-sammy').get('mpd')).toBe(LAB_MANIFEST_PATH);
    expect(params('shaka-sammy').has('m3u8')).toBe(false);
    expect(params('hlsjs-sammy').get('player')).toBe('hlsjs');
    expect(params('hlsjs-sammy').get('m3u8')).toBe('/media/lab/master.m3u8');
    expect(params('sammy-paper').get('player')).toBe('dashjs');
    expect(params('sammy-paper').get('arm')).toBe('sammy-paper');
    // Every player gets the one buffer target.
    for (const arm of NEW_ARMS) expect(params(arm).get('buf')).toBe('240');
    expect(hlsMasterPath('/media/lab-60s/manifest.mpd')).toBe('/media/lab-60s/master.m3u8');
  });
});

describe('the report with several players', () => {
  const metric = (arm: Arm, chunkThroughputMbps: number, meanBitrateKbps: number, p50: number, medianPaceKbps = 0): RunMetrics => ({
    arm,
    neighbour: 'udp',
    index: 1,
    startupDelayMs: 300,
    rebufferCount: 0,
    rebufferSeconds: 0,
    meanBitrateKbps,
    chunkThroughputMbps,
    videoChunks: 30,
    medianPaceKbps,
    errors: 0,
    neighbourMetric: { name: 'UDP one-way delay', unit: 'ms', p50, p95: p50 * 2, mean: p50, samples: 9000 },
  });
  const metrics = [
    metric('shaka-unpaced', 30, 3300, 10),
    metric('shaka-sammy', 10, 3250, 3, 10_500),
    metric('hlsjs-unpaced', 31, 3430, 11),
    metric('hlsjs-sammy', 11, 3400, 3, 10_700),
    metric('sammy-paper', 6, 3200, 2.5, 6_000),
  ];
  const env: BenchEnvironment = {
    queueBytes: 100_000,
    rateMbps: 40,
    burstBytes: 4542,
    topVideoKbps: 3300,
    capKbps: 13_200,
    cc: 'cubic',
    ccPinnedBy: 'per socket',
    kernel: 'test',
    chromium: 'test',
    startedAt: 'now',
    failedRuns: [],
  };
  const report = renderMarkdown({
    config: config(['--runs', '1', '--neighbours', 'udp', '--arms', NEW_ARMS.join(',')]),
    env,
    metrics,
    plots: [],
  });

  it('groups the rows by player, with a player column', () => {
    const rows = report.split('\n').filter((l) => l.startsWith('| Shaka') || l.startsWith('| hls.js') || l.startsWith('| dash.js'));
    const firstTable = rows.slice(0, 5).map((l) => l.split(' | ').slice(0, 2).join(' | '));
    expect(firstTable).toEqual([
      '| dash.js 5 (DASH) | Sammy PRESETS.paper (the paper’s pace design)',
      '| Shaka Player 5 (DASH) | Shaka default ABR, unpaced',
      '| Shaka Player 5 (DASH) | Shaka + Sammy (defaults)',
      '| hls.js 1.7 (HLS) | hls.js default ABR, unpaced',
      '| hls.js 1.7 (HLS) | hls.js + Sammy (defaults)',
    ]);
    expect(report).toContain("hls.js's bitrate is its variant's BANDWIDTH");
  });

  it("compares each Sammy arm with its own player's control, against the targets", () => {
    const section = (heading: string) => report.split('\n## ').find((s) => s.startsWith(heading)) ?? '';
    const shaka = section("Shaka + Sammy (defaults) against shaka-unpaced: the issue's targets");
    expect(shaka).toMatch(/\| video chunk throughput \| 30\.0 Mbps \| 10\.0 Mbps \| -66\.7% \| -53\.0% \| ≥ 50% lower \| met \|/);
    expect(shaka).toMatch(/\| neighbour UDP one-way delay p50 \| 10\.00 ms \| 3\.00 ms \| -70\.0% .* met \|/);
    const hls = section("hls.js + Sammy (defaults) against hlsjs-unpaced: the issue's targets");
    expect(hls).toMatch(/\| mean video bitrate \| 3430 kbps \| 3400 kbps \| -0\.9% .* met \|/);
    // Its control (dash.js unpaced) did not run: no comparison, rather than one with another player.
    expect(report).not.toContain('PRESETS.paper (the paper’s pace design) against');
    expect(report).not.toMatch(/against unpaced/);
    expect(report).not.toMatch(/shaka-unpaced against|hlsjs-unpaced against/);
  });
});

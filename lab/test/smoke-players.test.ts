/**
 * Smoke variant of the lab bench for the other players and Sammy's paper preset: Shaka and
 * hls.js, each unpaced and with Sammy, and dash.js with PRESETS.paper, one short run each with
 * the paced UDP neighbour, through the real topology, Chromium, players, adapters and origin
 * middleware. Each page must play and fill the PageState the bench measures.
 * Needs root and network namespaces; anywhere else it skips and says why (the only allowed skip).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownNamespacesGone, runBench, type BenchResult } from '../src/bench.js';
import { ARM_SPECS, BOTTLENECK_MBPS, type Arm } from '../src/config.js';
import { DEFAULT_MANIFEST_PATH, DEFAULT_MEDIA_ROOT, ensureMedia } from '../src/media.js';
import { namespaceSupport } from '../src/topology.js';
import { smokeConfig } from './support/smoke-config.js';

const support = namespaceSupport();
if (!support.ok) console.log(`\n[lab smoke: players] SKIPPED: ${support.reason}\n`);

const ARMS: Arm[] = ['shaka-unpaced', 'shaka-sammy', 'hlsjs-unpaced', 'hlsjs-sammy', 'sammy-paper'];
/** Five sessions of 20 s, a warm-up, the topology: a few minutes on a loaded machine. */
const BENCH_TIMEOUT_MS = 420_000;

describe.skipIf(!support.ok)('lab bench smoke: Shaka, hls.js and paper-preset arms with a paced UDP neighbour', () => {
  const resultsDir = mkdtempSync(join(tmpdir(), 'sammy-lab-smoke-players-'));
  let result: BenchResult;

  beforeAll(async () => {
    await ensureMedia(DEFAULT_MEDIA_ROOT, DEFAULT_MANIFEST_PATH);
    const config = smokeConfig(ARMS, 20, resultsDir);
    result = await runBench(config);
  }, BENCH_TIMEOUT_MS);

  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('plays every arm and fills the page state the bench measures', () => {
    expect(result.env.failedRuns).toEqual([]);
    expect(result.runs.map((r) => r.arm).sort()).toEqual([...ARMS].sort());
    for (const run of result.runs) {
      const p = run.page;
      const what = (s: string) => `${run.arm}: ${s}`;
      expect(p.arm).toBe(run.arm);
      expect(p.errors, what('page errors')).toEqual([]);
      expect(p.startedAt, what('playback started')).toBeDefined();
      expect(p.startupRequests?.length, what('startup requests')).toBeGreaterThan(0);
      const video = p.chunks.filter((c) => c.mediaType === 'video');
      expect(video.length, what('video chunks')).toBeGreaterThanOrEqual(3);
      expect(
        p.chunks.some((c) => c.mediaType === 'audio'),
        what('audio chunks'),
      ).toBe(true);
      for (const c of video) {
        // Matched to its Resource Timing entry: request → last byte, the body, the server's report.
        expect(c.end, what(`${c.url} timing`)).toBeGreaterThan(c.start);
        expect(c.bytes, what(`${c.url} bytes`)).toBeGreaterThan(0);
        expect(c.bitrateKbps, what(`${c.url} bitrate`)).toBeGreaterThan(0);
        expect(c.segmentSeconds, what(`${c.url} duration`)).toBeGreaterThan(0);
        expect(c.server.appliedPaceKbps, what(`${c.url} server report`)).toBeDefined();
        expect(c.protocol, what(`${c.url} protocol`)).toBe('http/1.1');
      }
      expect(p.qualities.length, what('rendered qualities')).toBeGreaterThan(0);
      expect(p.buffer?.length, what('buffer samples')).toBeGreaterThan(10);
      expect(Math.max(...p.buffer!.map((b) => b.seconds)), what('buffer')).toBeGreaterThan(4);
      expect(p.protocols?.media['http/1.1'], what('media requests')).toBeGreaterThan(video.length);
      if (ARM_SPECS[run.arm].judged) {
        expect(
          p.phases.map((x) => x.phase),
          what('phases'),
        ).toContain('playing');
        expect(p.paces.filter((x) => x.kbps !== undefined).length, what('paced decisions')).toBeGreaterThan(2);
      } else {
        expect(p.paces, what('no Sammy')).toEqual([]);
      }
    }
  });

  it('paces the Sammy arms and not the controls, below their chunk throughput', () => {
    const byArm = Object.fromEntries(result.metrics.map((m) => [m.arm, m]));
    for (const arm of ARMS) {
      const m = byArm[arm]!;
      expect(m.meanBitrateKbps, `${arm} bitrate`).toBeGreaterThan(0);
      expect(m.chunkThroughputMbps!, `${arm} chunk throughput`).toBeLessThan(BOTTLENECK_MBPS * 1.1);
      expect(m.neighbourMetric?.samples, `${arm} UDP samples`).toBeGreaterThan(1000);
      if (ARM_SPECS[arm].judged) expect(m.medianPaceKbps, `${arm} pace`).toBeGreaterThan(1000);
      else expect(m.medianPaceKbps ?? 0, `${arm} pace`).toBe(0);
    }
    expect(byArm['shaka-sammy']!.chunkThroughputMbps!).toBeLessThan(byArm['shaka-unpaced']!.chunkThroughputMbps!);
    expect(byArm['hlsjs-sammy']!.chunkThroughputMbps!).toBeLessThan(byArm['hlsjs-unpaced']!.chunkThroughputMbps!);
  });

  it("reports each player's Sammy arm against its own control, and leaves no namespace behind", () => {
    const report = readFileSync(result.reportPath, 'utf8');
    expect(report).toContain('| player | arm | runs |');
    expect(report).toContain('Shaka + Sammy (defaults) against shaka-unpaced');
    expect(report).toContain('hls.js + Sammy (defaults) against hlsjs-unpaced');
    expect(ownNamespacesGone()).toBe(true);
  });
});

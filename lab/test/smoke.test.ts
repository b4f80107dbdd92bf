/**
 * Smoke variant of the lab bench: two arms (unpaced, Sammy), one neighbour (paced UDP), one short
 * run each, through the real topology, Chromium, dash.js, plugin and origin middleware.
 * Needs root and network namespaces; anywhere else it skips and says why (the only allowed skip).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownNamespacesGone, runBench, type BenchResult } from '../src/bench.js';
import { BOTTLENECK_MBPS, PAPER_RTT_MS } from '../src/config.js';
import { DEFAULT_MANIFEST_PATH, DEFAULT_MEDIA_ROOT, ensureMedia } from '../src/media.js';
import { namespaceSupport } from '../src/topology.js';
import { smokeConfig } from './support/smoke-config.js';

const support = namespaceSupport();
if (!support.ok) console.log(`\n[lab smoke] SKIPPED: ${support.reason}\n`);

describe.skipIf(!support.ok)('lab bench smoke: unpaced vs Sammy with a paced UDP neighbour', () => {
  const resultsDir = mkdtempSync(join(tmpdir(), 'sammy-lab-smoke-'));
  let result: BenchResult;

  beforeAll(async () => {
    await ensureMedia(DEFAULT_MEDIA_ROOT, DEFAULT_MANIFEST_PATH);
    const config = smokeConfig(['unpaced', 'sammy'], 24, resultsDir);
    result = await runBench(config);
  });

  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('runs both arms to the end and measures the session', () => {
    expect(result.env.failedRuns).toEqual([]);
    expect(result.metrics.map((m) => m.arm).sort()).toEqual(['sammy', 'unpaced']);
    for (const m of result.metrics) {
      expect(m.startupDelayMs, `${m.arm} startup`).toBeGreaterThan(0);
      expect(m.startupDelayMs, `${m.arm} startup`).toBeLessThan(15_000);
      expect(m.videoChunks, `${m.arm} video chunks`).toBeGreaterThanOrEqual(3);
      expect(m.meanBitrateKbps, `${m.arm} bitrate`).toBeGreaterThan(0);
      expect(m.chunkThroughputMbps, `${m.arm} chunk throughput`).toBeGreaterThan(0);
      // The bottleneck is real: nothing gets through faster than its rate (plus a little tbf burst).
      expect(m.chunkThroughputMbps!, `${m.arm} chunk throughput`).toBeLessThan(BOTTLENECK_MBPS * 1.1);
      expect(m.neighbourMetric?.samples, `${m.arm} UDP samples`).toBeGreaterThan(1000);
    }
    // The page reads the origin's delivery records (the video RTT and the refetch count come from them).
    for (const r of result.runs) {
      expect(r.errors, `${r.arm} errors`).toEqual([]);
      expect(r.records.length, `${r.arm} delivery records`).toBeGreaterThan(0);
    }
  });

  it('delays every packet on the path by the configured round trip, without breaking TCP', () => {
    // The UDP echo through the empty bottleneck: the delay line's 2 × 2.5 ms plus scheduling.
    expect(result.env.baseRttMs?.udpMin).toBeGreaterThanOrEqual(PAPER_RTT_MS * 0.95);
    expect(result.env.baseRttMs?.udpMedian).toBeLessThan(PAPER_RTT_MS + 5);
    // The video's TCP connections saw the same path (kernel min_rtt).
    expect(result.env.baseRttMs?.tcpMinRtt).toBeGreaterThanOrEqual(PAPER_RTT_MS * 0.95);
  });

  it('paces Sammy and not the control', () => {
    const byArm = Object.fromEntries(result.metrics.map((m) => [m.arm, m]));
    expect(byArm.unpaced!.medianPaceKbps ?? 0).toBe(0);
    expect(byArm.sammy!.medianPaceKbps).toBeGreaterThan(1000);
    expect(byArm.sammy!.chunkThroughputMbps!).toBeLessThan(byArm.unpaced!.chunkThroughputMbps!);
  });

  it('writes the report, plots and raw data, and leaves no namespace behind', () => {
    const report = readFileSync(result.reportPath, 'utf8');
    expect(report).toContain('| arm | runs |');
    expect(report).toContain('Sammy (defaults = PRESETS.bufferAware) against unpaced');
    expect(existsSync(join(result.dir, 'runs.csv'))).toBe(true);
    expect(existsSync(join(result.dir, 'plots', 'timeseries.svg'))).toBe(true);
    expect(existsSync(join(result.dir, 'plots', 'neighbour-udp.svg'))).toBe(true);
    expect(existsSync(join(result.dir, 'plots', 'timeseries.png'))).toBe(true);
    expect(existsSync(join(result.dir, 'plots', 'neighbour-udp.png'))).toBe(true);
    expect(existsSync(join(result.dir, 'runs', 'sammy-udp-1.json'))).toBe(true);
    expect(ownNamespacesGone()).toBe(true);
  });
});

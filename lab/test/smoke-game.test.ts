/**
 * Smoke test of the game-stream neighbour (issue 34): unpaced and Sammy, one short run each beside a
 * real WebRTC call between two Chromiums through the real bottleneck. Checks that frames flowed with
 * readable stamps over host candidates, and that every figure of the game and of the video is in the
 * run's metrics, the report, runs.csv and the timeline plot. Needs root and network namespaces;
 * anywhere else it skips and says why (the only allowed skip).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownNamespacesGone, runBench, type BenchResult } from '../src/bench.js';
import { DEFAULT_MANIFEST_PATH, DEFAULT_MEDIA_ROOT, ensureMedia } from '../src/media.js';
import { namespaceSupport } from '../src/topology.js';
import { smokeConfig } from './support/smoke-config.js';

const support = namespaceSupport();
if (!support.ok) console.log(`\n[lab game smoke] SKIPPED: ${support.reason}\n`);

describe.skipIf(!support.ok)('lab bench smoke: the WebRTC game stream beside unpaced and Sammy', () => {
  const resultsDir = mkdtempSync(join(tmpdir(), 'sammy-lab-game-smoke-'));
  let result: BenchResult;

  beforeAll(async () => {
    await ensureMedia(DEFAULT_MEDIA_ROOT, DEFAULT_MANIFEST_PATH);
    result = await runBench({ ...smokeConfig(['unpaced', 'sammy'], 20, resultsDir), neighbours: ['game'], game: { warmupSeconds: 4 } });
  }, 300_000);

  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('streams stamped frames between the namespaces over host candidates, and the video plays beside it', () => {
    expect(result.env.failedRuns).toEqual([]);
    expect(result.runs.map((r) => r.arm).sort()).toEqual(['sammy', 'unpaced']);
    for (const r of result.runs) {
      const g = r.game!;
      expect(g, `${r.arm} game record`).toBeDefined();
      // Host candidates only, with plain addresses (no mDNS .local names): the sender's is the server's.
      expect(g.sender.localCandidates.length, `${r.arm} candidates`).toBeGreaterThan(0);
      for (const c of [...g.sender.localCandidates, ...g.receiver.localCandidates]) {
        expect(c).toMatch(/ typ host /);
        expect(c).not.toMatch(/\.local /);
      }
      expect(g.sender.localCandidates.some((c) => c.includes(' 10.247.2.2 '))).toBe(true);
      expect(g.receiver.localCandidates.some((c) => c.includes(' 10.247.1.2 '))).toBe(true);
      expect(g.sender.errors.concat(g.receiver.errors)).toEqual([]);
      // Frames flowed with readable stamps through the whole session.
      expect(g.receiver.frames.length / 3, `${r.arm} frames shown`).toBeGreaterThan(100);
      expect(g.receiver.unreadable, `${r.arm} unreadable stamps`).toBeLessThan(g.receiver.frames.length / 3 / 10);
      expect(g.receiver.receiver.at(-1)?.bytesReceived).toBeGreaterThan(1_000_000);
    }
  });

  it("has every figure of the game and the video in each run's metrics", () => {
    for (const m of result.metrics) {
      const g = m.game!;
      for (const [name, v] of Object.entries({
        p50: g.latencyP50Ms,
        p95: g.latencyP95Ms,
        p99: g.latencyP99Ms,
        over50: g.over50Share,
        over100: g.over100Share,
        freezes: g.freezes,
        freezeSeconds: g.freezeSeconds,
        dropped: g.framesDropped,
        receivedMbps: g.receivedMbps,
        rtt: g.rttMs,
        jitter: g.jitterMs,
        cpuShare: g.cpuLimitedShare,
        bandwidthShare: g.bandwidthLimitedShare,
        bitrate: m.meanBitrateKbps,
        chunkThroughput: m.chunkThroughputMbps,
        startup: m.startupDelayMs,
        load: m.loadAvg1,
      })) {
        expect(v, `${m.arm} ${name}`).toBeTypeOf('number');
        expect(Number.isFinite(v), `${m.arm} ${name}`).toBe(true);
      }
      // Stamp latency through a 5 ms path: above the path, below a frozen stream's.
      expect(g.latencyP50Ms!).toBeGreaterThan(2.5);
      expect(g.latencyP50Ms!).toBeLessThan(5000);
      expect(g.framesShown).toBeGreaterThan(50);
      expect(m.gameAlone?.framesShown, `${m.arm} game alone`).toBeGreaterThan(10);
    }
  });

  it('writes the game section, its csv columns and the timeline plot, and leaves no namespace behind', () => {
    const report = readFileSync(result.reportPath, 'utf8');
    expect(report).toContain('## Game stream neighbour (issue 34)');
    expect(report).toContain("issue 34's targets");
    expect(report).toMatch(/\| game frame latency p95 \(ms\) \| \d/);
    const csv = readFileSync(join(result.dir, 'runs.csv'), 'utf8');
    expect(csv.split('\n')[0]).toContain('game_p95_ms');
    expect(existsSync(join(result.dir, 'plots', 'game-timeline.png'))).toBe(true);
    expect(existsSync(join(result.dir, 'plots', 'neighbour-game.png'))).toBe(true);
    expect(ownNamespacesGone()).toBe(true);
  });
});

/**
 * Smoke test of the home link (issue 40): one short run of the game beside unpaced dash.js on
 * `--link home --queue fifo-2bdp` (40 Mbit/s, 40 ms, the downlink's queue in the router's delay
 * line). Checks that the delay line logged the game's RTP packets and that the per-frame network
 * delay is in the run's metrics, the report, runs.csv and a kept log. Needs root and network
 * namespaces; anywhere else it skips and says why (the only allowed skip).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownNamespacesGone, runBench, type BenchResult } from '../src/bench.js';
import { HOME_LINK, HOME_QUEUE_SPECS } from '../src/home-link.js';
import { DEFAULT_MANIFEST_PATH, DEFAULT_MEDIA_ROOT, ensureMedia } from '../src/media.js';
import { namespaceSupport } from '../src/topology.js';
import { smokeConfig } from './support/smoke-config.js';

const support = namespaceSupport();
if (!support.ok) console.log(`\n[lab home-link smoke] SKIPPED: ${support.reason}\n`);

describe.skipIf(!support.ok)('lab bench smoke: the game beside a film on the home link (fifo-2bdp)', () => {
  const resultsDir = mkdtempSync(join(tmpdir(), 'sammy-lab-home-smoke-'));
  let result: BenchResult;

  beforeAll(async () => {
    await ensureMedia(DEFAULT_MEDIA_ROOT, DEFAULT_MANIFEST_PATH);
    result = await runBench({
      ...smokeConfig(['unpaced'], 14, resultsDir),
      neighbours: ['game'],
      game: { warmupSeconds: 4 },
      rateMbps: HOME_LINK.rateMbps,
      rttMs: HOME_LINK.rttMs,
      homeQueue: 'fifo-2bdp',
      queueBytes: HOME_QUEUE_SPECS['fifo-2bdp'].queueBytes,
    });
  }, 240_000);

  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it("logs the game's packets at the router and measures each frame's delay through it", () => {
    expect(result.env.failedRuns).toEqual([]);
    const [m] = result.metrics;
    const net = m!.gameNet!;
    expect(net, 'game network delay').toBeDefined();
    // 14 s at 30 fps beside the film; the first frames before the window are the game alone.
    expect(net.frames).toBeGreaterThan(200);
    expect(net.framesIncomplete).toBeLessThan(net.frames / 10);
    // One way through the router is 20 ms of propagation plus queue and serialization.
    expect(net.p50Ms!).toBeGreaterThanOrEqual(20);
    expect(net.p95Ms!).toBeGreaterThanOrEqual(net.p50Ms!);
    expect(net.p99Ms!).toBeLessThan(2000);
    const alone = m!.gameNetAlone!;
    expect(alone.frames).toBeGreaterThan(20);
    expect(alone.p50Ms!).toBeGreaterThanOrEqual(20);
    // The delay line saw the game's flow whole: no event lost, and its queue was the FIFO asked for.
    const counters = JSON.parse(result.env.delayLine ?? '{}') as { queueKind?: string; rtpEventsLost?: number };
    expect(counters.queueKind).toBe('fifo');
    expect(counters.rtpEventsLost).toBe(0);
    // The film's queue is the delay line's link: its samples are the run's queue delay.
    expect(m!.queueDelayP95Ms).toBeTypeOf('number');
  });

  it("writes the network-delay section, the runs.csv columns and the run's RTP log, and leaves no namespace behind", () => {
    const report = readFileSync(result.reportPath, 'utf8');
    expect(report).toContain('**Home link** (`--link home --queue fifo-2bdp`)');
    expect(report).toContain("## The game's delay in the network (issue 40)");
    expect(report).toMatch(/\| dash\.js default ABR, unpaced \| with the film \| \d/);
    const [head, row] = readFileSync(join(result.dir, 'runs.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    expect(Number(row![head!.indexOf('game_net_p95_ms')])).toBeGreaterThanOrEqual(20);
    expect(row![head!.indexOf('queue')]).toBe('"fifo-2bdp"');
    expect(existsSync(join(result.dir, 'runs', 'unpaced-game-1.rtp.log'))).toBe(true);
    expect(existsSync(join(result.dir, 'plots', 'game-timeline.png'))).toBe(true);
    expect(ownNamespacesGone()).toBe(true);
  });
});

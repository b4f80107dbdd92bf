/**
 * The smoke tests' bench: the paper's link (40 Mbit/s, 5 ms RTT, 4 × BDP queue) and neighbours,
 * one short run per arm beside the paced UDP flow, results in a temporary folder.
 */
import {
  BOTTLENECK_MBPS,
  PAPER_BDP_BYTES,
  PAPER_NEIGHBOURS,
  PAPER_RTT_MS,
  QUEUE_BDP_MULTIPLE,
  type Arm,
  type BenchConfig,
} from '../../src/config.js';
import { DEFAULT_MANIFEST_PATH, DEFAULT_MEDIA_ROOT } from '../../src/media.js';

export function smokeConfig(arms: readonly Arm[], durationSeconds: number, resultsDir: string): BenchConfig {
  return {
    arms: [...arms],
    neighbours: ['udp'],
    edge: 'none',
    runs: 1,
    durationSeconds,
    cc: 'cubic',
    neighbourCc: 'reno',
    seed: 7,
    queueBytes: QUEUE_BDP_MULTIPLE * PAPER_BDP_BYTES,
    rateMbps: BOTTLENECK_MBPS,
    rttMs: PAPER_RTT_MS,
    manifestPath: DEFAULT_MANIFEST_PATH,
    mediaDir: DEFAULT_MEDIA_ROOT,
    ...PAPER_NEIGHBOURS,
    resultsDir,
    plainProgress: true,
  };
}

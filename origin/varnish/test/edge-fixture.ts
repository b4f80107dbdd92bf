/** The reference origin on a free loopback port with a media dir sized for paced transfers. */
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { startOrigin, type RunningOrigin } from '@sammy/origin-server';
import { silentLogger } from 'sammy-pacing-express';
import { makeMediaDir } from '../../middleware/test/helpers.js';

export { cmcdQuery, relativeError, PACING_TOLERANCE, expectPacedAt as expectRateAt, waitFor } from '../../middleware/test/helpers.js';

export interface TestOrigin {
  origin: RunningOrigin;
  /** Served at /media/ (test files under test/). */
  mediaDir: string;
  remove(): Promise<void>;
}

/** startOrigin({ port: 0 }) serving /media/test/{warm,seg-<kbps>}.m4s (1 MB warm-up, segments ≥ 1.2 s at their rate). */
export async function startMediaOrigin(rates: readonly number[]): Promise<TestOrigin> {
  const media = makeMediaDir(rates);
  const origin = await startOrigin({ port: 0, mediaDir: media.dir, siteDir: join(media.dir, 'no-site'), logger: silentLogger });
  return {
    origin,
    mediaDir: media.dir,
    async remove() {
      await origin.close();
      media.remove();
    },
  };
}

/**
 * The kernel's view of the server side of a connection (`ss -tin`, src port `serverPort`, dst port
 * `clientPort`): its current pacing rate and SO_MAX_PACING_RATE ceiling, bits/s (undefined: no ceiling).
 */
export function socketPacing(serverPort: number, clientPort: number): { pacingRateBps?: number; maxPacingRateBps?: number; line: string } {
  const r = spawnSync('ss', ['-tinH', 'state', 'established', `( sport = :${serverPort} and dport = :${clientPort} )`], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`ss failed (${r.status}): ${r.stderr}`);
  const line = r.stdout.replace(/\s+/g, ' ').trim();
  // iproute2 prints `pacing_rate <current>bps/<max>bps`, the max only when one is set.
  const m = / pacing_rate (\d+)bps(?:\/(\d+)bps)?/.exec(line);
  const pacingRateBps = m ? Number(m[1]) : undefined;
  const maxPacingRateBps = m?.[2] !== undefined ? Number(m[2]) : undefined;
  return { pacingRateBps, maxPacingRateBps, line };
}

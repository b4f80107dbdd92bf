/**
 * The router's propagation delay. netem is not in this kernel and a proxy would terminate TCP, so
 * the router routes every forwarded packet through a TUN device served by `lab/delay` (a small Go
 * program: read a packet, hold it for the one-way delay, write it back unchanged). Policy routing
 * sends packets arriving from either veth into the TUN; packets coming back out of it take the main
 * table on to the other side, where the bottleneck's tbf is. The delay is before the queue, as a
 * path's propagation delay would be for the sender.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@sammy/test-content';
import { inNs, lastLine, run, start, waitForLine } from './processes.js';
import { LAB_DIR } from './scripts.js';

const SOURCE_DIR = join(LAB_DIR, 'delay');
const BIN_DIR = join(REPO_ROOT, '.cache', 'lab');
const BIN = join(BIN_DIR, 'sammy-delay');
/** Routing table the router's policy rules send forwarded packets to. */
const DELAY_TABLE = '100';

function findGo(): string {
  for (const candidate of [process.env.GO, 'go', '/usr/local/go/bin/go']) {
    if (!candidate) continue;
    try {
      execFileSync(candidate, ['version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      /* next */
    }
  }
  throw new Error('the lab delay line needs Go to build lab/delay (https://go.dev/dl/, or set GO=/path/to/go); --rtt-ms 0 runs without a delay');
}

/** Builds lab/delay into .cache/lab when its source changed (stamped by hash). Returns the binary. */
export function ensureDelayBinary(): string {
  const source = ['main.go', 'go.mod'].map((f) => readFileSync(join(SOURCE_DIR, f))).reduce((h, b) => h.update(b), createHash('sha256')).digest('hex');
  const stamp = `${BIN}.sha256`;
  if (existsSync(BIN) && existsSync(stamp) && readFileSync(stamp, 'utf8') === source) return BIN;
  mkdirSync(BIN_DIR, { recursive: true });
  // Standard library only: no module download, a few seconds.
  execFileSync(findGo(), ['build', '-o', BIN, '.'], { cwd: SOURCE_DIR, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' } });
  writeFileSync(stamp, source);
  return BIN;
}

export interface DelayLine {
  /** Counters the delay line printed when it stopped (packets, drops, lateness). */
  stop(): Promise<string>;
}

/**
 * Starts the delay line in the router namespace and routes both directions through it.
 * `devices` are the router's two veths; both directions get half the round-trip delay.
 */
export async function startDelayLine(router: string, devices: string[], tunName: string, rttMs: number): Promise<DelayLine> {
  const oneWayUs = Math.round((rttMs * 1000) / 2);
  const child = start(...inNs(router, ensureDelayBinary(), ['-dev', tunName, '-delay-us', String(oneWayUs)]));
  await waitForLine(child, (l) => l.startsWith('ready'), 10_000, 'delay line');
  const ip = (...args: string[]) => run('ip', ['-n', router, ...args]);
  // Line-rate bursts reach the TUN before the bottleneck: its queue toward the program must not drop them.
  await ip('link', 'set', tunName, 'txqueuelen', '10000', 'up');
  // Packets come back out of the TUN with their original source: strict reverse-path filtering would drop them.
  for (const dev of ['all', 'default', tunName, ...devices]) await run(...inNs(router, 'sysctl', ['-qw', `net.ipv4.conf.${dev}.rp_filter=0`]));
  await ip('route', 'add', 'default', 'dev', tunName, 'table', DELAY_TABLE);
  for (const dev of devices) await ip('rule', 'add', 'iif', dev, 'lookup', DELAY_TABLE);
  return {
    async stop() {
      await child.stop(2000);
      return lastLine(child.stdout());
    },
  };
}

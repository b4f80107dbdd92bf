/**
 * The router's propagation delay. netem is not in this kernel and a proxy would terminate TCP, so
 * the router routes every forwarded packet through a TUN device served by `lab/delay` (a small Go
 * program: read a packet, hold it for the one-way delay, write it back unchanged). Policy routing
 * sends packets arriving from either veth into the TUN; packets coming back out of it take the main
 * table on to the other side, where the bottleneck's tbf is. The delay is before the queue, as a
 * path's propagation delay would be for the sender.
 *
 * With traces, the same program is also the bottleneck of the downlink: packets to the client's
 * subnet go, after their delay, through a link that follows a trace as mahimahi's mm-link does
 * (lab/delay/link.go), switched to a trace per run (`setTrace`) and back to a constant rate
 * (`traceOff`: the lab's --rate, for page loads and the warm-up between runs). While a trace is on
 * the program writes a JSON line every 100 ms to its stats file (`readStats`).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
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
  throw new Error(
    'the lab delay line needs Go to build lab/delay (https://go.dev/dl/, or set GO=/path/to/go); --rtt-ms 0 runs without a delay',
  );
}

/** Builds lab/delay into .cache/lab when its source changed (stamped by hash). Returns the binary. */
export function ensureDelayBinary(): string {
  const files = [
    'go.mod',
    ...readdirSync(SOURCE_DIR)
      .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))
      .sort(),
  ];
  const source = files
    .map((f) => readFileSync(join(SOURCE_DIR, f)))
    .reduce((h, b) => h.update(b), createHash('sha256'))
    .digest('hex');
  const stamp = `${BIN}.sha256`;
  if (existsSync(BIN) && existsSync(stamp) && readFileSync(stamp, 'utf8') === source) return BIN;
  mkdirSync(BIN_DIR, { recursive: true });
  // Standard library only: no module download, a few seconds.
  execFileSync(findGo(), ['build', '-o', BIN, '.'], {
    cwd: SOURCE_DIR,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
  });
  writeFileSync(stamp, source);
  return BIN;
}

export interface DelayLine {
  /** Counters the delay line printed when it stopped (packets, drops, lateness). */
  stop(): Promise<string>;
  /** Only with `link`: switches the downlink's trace on (its clock starts now); resolves once it runs. */
  setTrace(opportunitiesFile: string): Promise<TraceOn>;
  /** Switches the trace off: the downlink is a constant link of the idle rate again (what waits stays queued). */
  traceOff(): Promise<void>;
  /** The link's stats lines of one trace (by its id; 0: the constant link, with `statsIdle`). */
  readStats(id: number): LinkSample[];
  /** Bytes of the RTP log so far (where a run's part begins); 0 without one. */
  rtpLogBytes(): number;
  /** The RTP log from byte `from` on ('' without one). */
  readRtpLog(from: number): string;
}

export interface TraceOn {
  id: number;
  /** When the trace's clock started, ms since the epoch (the delay line's clock). */
  startedAt: number;
  opportunities: number;
  periodMs: number;
}

/** One stats line of the trace-driven link (every 100 ms while a trace is on); bytes count IP packets. */
export interface LinkSample {
  /** ms since the epoch. */
  t: number;
  id: number;
  /** ms since the trace started. */
  traceMs: number;
  /** Bytes the trace offered since it started: 1500 per opportunity up to now, used or not. */
  capB: number;
  /** Bytes of the packets that left the link since it started. */
  relB: number;
  backlogB: number;
  /** Time the backlog takes to leave at the trace's coming opportunities: the queue delay a packet joining now meets. */
  waitMs: number;
  drops: number;
  dropB: number;
  /** Latest a packet left after its opportunity, since the previous line, µs. */
  lateMaxUs: number;
  /** Longest a packet that left since the previous line spent in the link, µs. */
  sojournMaxUs: number;
}

export interface LinkOptions {
  /** Destination subnets of the downlink (CIDRs, comma-separated). */
  downDst: string;
  queueBytes: number;
  statsFile: string;
  /** The downlink's constant rate while no trace is on (page loads, warm-up), Mbit/s. */
  idleMbps: number;
  /** The link's queue: drop-tail (default) or FQ-CoDel. */
  queueKind?: 'fifo' | 'fq-codel';
  /** Stats lines (id 0) while the constant link runs too: on the home link it is the bottleneck. */
  statsIdle?: boolean;
  /** File every RTP packet to the client goes to (in, out or dropped; game/net-delay.ts reads it). */
  rtpLogFile?: string;
}

/**
 * Starts the delay line in the router namespace and routes both directions through it.
 * `devices` are the router's two veths; both directions get half the round-trip delay.
 */
export async function startDelayLine(
  router: string,
  devices: string[],
  tunName: string,
  rttMs: number,
  link?: LinkOptions,
): Promise<DelayLine> {
  const oneWayUs = Math.round((rttMs * 1000) / 2);
  const linkArgs = link
    ? [
        '-down-dst',
        link.downDst,
        '-queue-bytes',
        String(link.queueBytes),
        '-stats',
        link.statsFile,
        '-idle-mbps',
        String(link.idleMbps),
        '-queue-kind',
        link.queueKind ?? 'fifo',
        ...(link.statsIdle ? ['-stats-idle'] : []),
        ...(link.rtpLogFile ? ['-rtp-log', link.rtpLogFile] : []),
      ]
    : [];
  // Replies to commands, in order: each command takes the next one.
  const waiting: Array<(line: string) => void> = [];
  const child = start(...inNs(router, ensureDelayBinary(), ['-dev', tunName, '-delay-us', String(oneWayUs), ...linkArgs]), {
    stdin: link !== undefined,
    onLine: (line) => {
      if (/^(trace-on|trace-off|error) ?/.test(line)) waiting.shift()?.(line);
    },
  });
  const command = (text: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`delay line: no answer to "${text}" within 5 s`)), 5000);
      waiting.push((line) => {
        clearTimeout(timer);
        if (line.startsWith('error')) reject(new Error(`delay line: ${text}: ${line.slice(6)}`));
        else resolve(line);
      });
      child.write(`${text}\n`);
    });
  await waitForLine(child, (l) => l.startsWith('ready'), 10_000, 'delay line');
  const ip = (...args: string[]) => run('ip', ['-n', router, ...args]);
  // Line-rate bursts reach the TUN before the bottleneck: its queue toward the program must not drop them.
  await ip('link', 'set', tunName, 'txqueuelen', '10000', 'up');
  // Packets come back out of the TUN with their original source: strict reverse-path filtering would drop them.
  for (const dev of ['all', 'default', tunName, ...devices])
    await run(...inNs(router, 'sysctl', ['-qw', `net.ipv4.conf.${dev}.rp_filter=0`]));
  await ip('route', 'add', 'default', 'dev', tunName, 'table', DELAY_TABLE);
  for (const dev of devices) await ip('rule', 'add', 'iif', dev, 'lookup', DELAY_TABLE);
  return {
    async stop() {
      await child.stop(2000);
      return lastLine(child.stdout());
    },
    async setTrace(file) {
      if (!link) throw new Error('delay line started without a link: no trace can be set');
      if (/\s/.test(file)) throw new Error(`delay line: the trace's path must have no spaces: ${file}`);
      const [, id, startedAt, opportunities, periodMs] = (await command(`trace ${file}`)).split(' ');
      return { id: Number(id), startedAt: Number(startedAt), opportunities: Number(opportunities), periodMs: Number(periodMs) };
    },
    async traceOff() {
      if (link) await command('off');
    },
    readStats(id) {
      if (!link || !existsSync(link.statsFile)) return [];
      const out: LinkSample[] = [];
      for (const line of readFileSync(link.statsFile, 'utf8').split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const s = JSON.parse(line) as LinkSample;
          if (s.id === id) out.push(s);
        } catch {
          /* a line being written */
        }
      }
      return out;
    },
    rtpLogBytes() {
      return link?.rtpLogFile && existsSync(link.rtpLogFile) ? statSync(link.rtpLogFile).size : 0;
    },
    readRtpLog(from) {
      if (!link?.rtpLogFile || !existsSync(link.rtpLogFile)) return '';
      const size = statSync(link.rtpLogFile).size;
      if (size <= from) return '';
      const fd = openSync(link.rtpLogFile, 'r');
      try {
        const buf = Buffer.alloc(size - from);
        readSync(fd, buf, 0, buf.length, from);
        return buf.toString('utf8');
      } finally {
        closeSync(fd);
      }
    },
  };
}

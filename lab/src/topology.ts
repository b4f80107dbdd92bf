/**
 * The lab network: server ─ router ─ client, three network namespaces joined by veth pairs.
 * The router's egress toward the client is the bottleneck (video, UDP, bulk TCP and HTTP all flow
 * server → client), shaped by a token bucket with a byte-limited drop-tail queue. The reverse
 * direction gets the same rate so the link is symmetric; only ACKs and requests cross it.
 *
 *   [server ns] srv ══ rs (router ns) rc ══ cli [client ns]
 *   10.247.2.2/24      10.247.2.1  10.247.1.1   10.247.1.2/24
 *                                  └ tbf 40 Mbit, limit = queue bytes
 *
 * With a round-trip delay, the router forwards every packet through a TUN delay line first
 * (delay-line.ts): half the RTT in each direction, before the bottleneck.
 *
 * With traces (`link`), the delay line is also the downlink's bottleneck: packets to the client
 * go through its trace-driven queue (mahimahi's mm-link semantics), and the downlink's tbf sits at
 * TRACE_TBF_MBPS, far above any trace, so that it never limits (its counters still show what left).
 * Between traces (page loads, the warm-up) the delay line's link runs at a constant `rateMbps`.
 * The uplink keeps the tbf at `rateMbps`.
 */
import { TRACE_TBF_MBPS } from './config.js';
import { HOME_QUEUE_SPECS, type HomeQueue } from './home-link.js';
import { startDelayLine, type DelayLine } from './delay-line.js';
import { inNs, run, runSync } from './processes.js';

export const NS_PREFIX = 'sammy-lab-';

export const SERVER_IP = '10.247.2.2';
export const CLIENT_IP = '10.247.1.2';
const ROUTER_SERVER_SIDE_IP = '10.247.2.1';
const ROUTER_CLIENT_SIDE_IP = '10.247.1.1';

export interface Topology {
  server: string;
  router: string;
  client: string;
  /** Router interface toward the client: where the bottleneck queue builds. */
  bottleneckDev: string;
  rateMbps: number;
  queueBytes: number;
  /** tbf bucket: a few packets at line rate, so bursts above the rate are not hidden. */
  burstBytes: number;
  /** Round-trip propagation delay added by the router's delay line, ms (0: none). */
  rttMs: number;
  delayLine?: DelayLine;
  /** With traces: the downlink follows them in the delay line; its tbf runs at `downTbfMbps`, far above. */
  traceLink: boolean;
  /** The home link's queue: the downlink is the delay line's constant link with that queue (tbf far above, as with traces). */
  homeQueue?: HomeQueue;
  /** Rate of the downlink's tbf (= rateMbps without traces). */
  downTbfMbps: number;
  downBurstBytes: number;
}

/** Namespace names carry the owner's pid, so a later run can tell a crashed run's leftovers from a live one. */
export function namesFor(pid: number): { server: string; router: string; client: string } {
  return { server: `${NS_PREFIX}${pid}-srv`, router: `${NS_PREFIX}${pid}-rtr`, client: `${NS_PREFIX}${pid}-cli` };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function listNamespaces(): string[] {
  const out = runSync('ip', ['netns', 'list']);
  return out
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter((n) => n.startsWith(NS_PREFIX));
}

/** Kills what still runs inside a namespace and removes it (its veths and qdiscs go with it). */
function removeNamespace(ns: string): void {
  try {
    const pids = runSync('ip', ['netns', 'pids', ns])
      .split('\n')
      .map(Number)
      .filter((p) => p > 0);
    for (const p of pids) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  } catch {
    /* namespace already half gone */
  }
  try {
    runSync('ip', ['netns', 'delete', ns]);
  } catch {
    /* already deleted */
  }
}

/** Removes namespaces left by bench processes that no longer exist (a crash or SIGKILL). Returns their names. */
export function removeLeftovers(): string[] {
  const removed: string[] = [];
  for (const ns of listNamespaces()) {
    const pid = Number(ns.slice(NS_PREFIX.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) continue;
    removeNamespace(ns);
    removed.push(ns);
  }
  return removed;
}

/** Synchronous teardown, safe to call more than once and from signal handlers. */
export function destroyTopology(t: Pick<Topology, 'server' | 'router' | 'client'>): void {
  for (const ns of [t.client, t.server, t.router]) removeNamespace(ns);
}

export interface TopologyOptions {
  rateMbps: number;
  queueBytes: number;
  rttMs: number;
  /** Traces: the downlink follows them in the delay line, which writes its stats here. */
  traceStatsFile?: string;
  /** The home link: the downlink is the delay line's constant link with this queue. */
  home?: { queue: HomeQueue; statsFile: string };
  /** With a link in the delay line: where it logs the RTP packets to the client. */
  rtpLogFile?: string;
  /** More subnets (CIDR) reached through the client namespace whose packets take the downlink's link (the demo's person). */
  moreDownlinkSubnets?: string[];
}

export async function createTopology(opts: TopologyOptions): Promise<Topology> {
  const names = namesFor(process.pid);
  const id = process.pid.toString(36);
  // veth names are created in the root namespace first: unique per bench process, ≤ 15 chars.
  const dev = { srv: `sl${id}s`, rs: `sl${id}rs`, rc: `sl${id}rc`, cli: `sl${id}c`, tun: `sl${id}d` };
  const statsFile = opts.traceStatsFile ?? opts.home?.statsFile;
  const inDelayLine = statsFile !== undefined;
  const t: Topology = {
    ...names,
    bottleneckDev: dev.rc,
    rateMbps: opts.rateMbps,
    queueBytes: opts.queueBytes,
    burstBytes: 3 * 1514,
    rttMs: opts.rttMs,
    traceLink: opts.traceStatsFile !== undefined,
    ...(opts.home ? { homeQueue: opts.home.queue } : {}),
    downTbfMbps: inDelayLine ? TRACE_TBF_MBPS : opts.rateMbps,
    // At 1000 Mbit/s three packets are 36 µs of tokens: the link's releases (a burst when it catches
    // up after a late wake) must pass the tbf without waiting, so it gets a millisecond's worth.
    downBurstBytes: inDelayLine ? 125_000 : 3 * 1514,
  };
  try {
    for (const ns of [t.server, t.router, t.client]) await run('ip', ['netns', 'add', ns]);
    await run('ip', ['link', 'add', dev.srv, 'netns', t.server, 'type', 'veth', 'peer', 'name', dev.rs, 'netns', t.router]);
    await run('ip', ['link', 'add', dev.cli, 'netns', t.client, 'type', 'veth', 'peer', 'name', dev.rc, 'netns', t.router]);
    const ip = (ns: string, ...args: string[]) => run('ip', ['-n', ns, ...args]);
    for (const ns of [t.server, t.router, t.client]) await ip(ns, 'link', 'set', 'lo', 'up');
    await ip(t.server, 'addr', 'add', `${SERVER_IP}/24`, 'dev', dev.srv);
    await ip(t.server, 'link', 'set', dev.srv, 'up');
    await ip(t.server, 'route', 'add', 'default', 'via', ROUTER_SERVER_SIDE_IP);
    await ip(t.client, 'addr', 'add', `${CLIENT_IP}/24`, 'dev', dev.cli);
    await ip(t.client, 'link', 'set', dev.cli, 'up');
    await ip(t.client, 'route', 'add', 'default', 'via', ROUTER_CLIENT_SIDE_IP);
    await ip(t.router, 'addr', 'add', `${ROUTER_SERVER_SIDE_IP}/24`, 'dev', dev.rs);
    await ip(t.router, 'addr', 'add', `${ROUTER_CLIENT_SIDE_IP}/24`, 'dev', dev.rc);
    await ip(t.router, 'link', 'set', dev.rs, 'up');
    await ip(t.router, 'link', 'set', dev.rc, 'up');
    await run(...inNs(t.router, 'sysctl', ['-qw', 'net.ipv4.ip_forward=1']));
    if (opts.rttMs > 0 || inDelayLine) {
      const link = inDelayLine
        ? {
            downDst: [`${CLIENT_IP.split('.').slice(0, 3).join('.')}.0/24`, ...(opts.moreDownlinkSubnets ?? [])].join(','),
            queueBytes: opts.queueBytes,
            statsFile,
            idleMbps: opts.rateMbps,
            ...(opts.home ? { queueKind: HOME_QUEUE_SPECS[opts.home.queue].kind, statsIdle: true } : {}),
            ...(opts.rtpLogFile ? { rtpLogFile: opts.rtpLogFile } : {}),
          }
        : undefined;
      t.delayLine = await startDelayLine(t.router, [dev.rs, dev.rc], dev.tun, opts.rttMs, link);
    }
    for (const [d, rate, burst] of [
      [dev.rc, t.downTbfMbps, t.downBurstBytes],
      [dev.rs, opts.rateMbps, t.burstBytes],
    ] as const) {
      await run('tc', [
        '-n',
        t.router,
        'qdisc',
        'add',
        'dev',
        d,
        'root',
        'tbf',
        'rate',
        `${rate}mbit`,
        'burst',
        String(burst),
        'limit',
        String(opts.queueBytes),
      ]);
    }
    return t;
  } catch (err) {
    destroyTopology(t);
    throw err;
  }
}

export interface QueueSample {
  /** ms since the epoch. */
  t: number;
  backlogBytes: number;
  drops: number;
  sentBytes: number;
}

/** Reads the bottleneck qdisc's counters (tc's JSON output). */
export async function readQueue(t: Topology): Promise<QueueSample> {
  const out = await run('tc', ['-n', t.router, '-s', '-j', 'qdisc', 'show', 'dev', t.bottleneckDev]);
  const q = (JSON.parse(out) as Array<{ kind: string; backlog: number; drops: number; bytes: number }>).find((x) => x.kind === 'tbf');
  if (!q) throw new Error(`no tbf on ${t.bottleneckDev}`);
  return { t: Date.now(), backlogBytes: q.backlog, drops: q.drops, sentBytes: q.bytes };
}

/**
 * Sets the namespace's default congestion control where the kernel allows it. Outside the initial
 * namespace Linux only accepts algorithms listed in net.ipv4.tcp_allowed_congestion_control, so
 * the servers also pin it per socket (TCP_CONGESTION, allowed to root); returns whether the
 * namespace default was set.
 */
export async function pinNamespaceCongestionControl(ns: string, cc: string): Promise<boolean> {
  try {
    await run(...inNs(ns, 'sysctl', ['-qw', `net.ipv4.tcp_congestion_control=${cc}`]));
    return true;
  } catch {
    return false;
  }
}

/** Whether this machine lets the bench build namespaces: root, `ip netns`, tbf. The reason when not. */
export function namespaceSupport(): { ok: true } | { ok: false; reason: string } {
  if (process.platform !== 'linux') return { ok: false, reason: `needs Linux network namespaces (this is ${process.platform})` };
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    return { ok: false, reason: 'needs root to create network namespaces (run as root)' };
  }
  const probe = `${NS_PREFIX}${process.pid}-probe`;
  try {
    runSync('ip', ['netns', 'add', probe]);
    runSync('ip', ['-n', probe, 'link', 'set', 'lo', 'up']);
    runSync('tc', ['-n', probe, 'qdisc', 'add', 'dev', 'lo', 'root', 'tbf', 'rate', '40mbit', 'burst', '5000', 'limit', '100000']);
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: `cannot create a network namespace with a tbf qdisc: ${(err as Error).message.split('\n')[0]}` };
  } finally {
    try {
      runSync('ip', ['netns', 'delete', probe]);
    } catch {
      /* never created */
    }
  }
}

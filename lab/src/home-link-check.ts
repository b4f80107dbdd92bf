#!/usr/bin/env node
/**
 * `npm run check:home-link -w @sammy/lab [-- --queue fifo-2bdp,fifo-bloated,fq-codel --seconds 20]`:
 * checks each home-link queue with a measurement before the bench trusts it. The same topology the
 * bench builds; UDP probes (client → server and back, the answer crossing the bottleneck) every
 * 50 ms, idle and under a bulk TCP download (iperf3, cubic, server → client); the delay line's
 * backlog as the wait it means. Prints a Markdown table. Linux, root.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HOME_LINK, HOME_QUEUES, HOME_QUEUE_SPECS, isHomeQueue, type HomeQueue } from './home-link.js';
import { cleanupOnExit, inNs, killAllChildren, lastLine, run, sleep, start, waitForLine } from './processes.js';
import { nodeScript } from './scripts.js';
import { quantile } from './stats.js';
import { CLIENT_IP, createTopology, destroyTopology, namesFor, removeLeftovers, SERVER_IP, type Topology } from './topology.js';

interface Probe {
  rttMs: number[];
  sent: number;
  lost: number;
}

async function probe(t: Topology, count: number): Promise<Probe> {
  const [node, ...script] = nodeScript('neighbours/udp-flow');
  const out = await run(
    ...inNs(t.client, node as string, [
      ...script,
      'probe',
      '--to',
      SERVER_IP,
      '--port',
      '9001',
      '--count',
      String(count),
      '--interval-ms',
      '50',
    ]),
    count * 50 + 10_000,
  );
  return JSON.parse(lastLine(out)) as Probe;
}

export interface QueueCheck {
  queue: HomeQueue;
  idle: Probe;
  loaded: Probe;
  /** iperf3's received rate over the load, Mbit/s. */
  bulkMbps?: number;
  /** The delay line's backlog during the load as the wait it means (FIFO order), ms. */
  backlogWaitP50Ms?: number;
  backlogWaitP95Ms?: number;
  linkDrops?: number;
}

async function check(queue: HomeQueue, seconds: number, tmp: string): Promise<QueueCheck> {
  const t = await createTopology({
    rateMbps: HOME_LINK.rateMbps,
    queueBytes: HOME_QUEUE_SPECS[queue].queueBytes,
    rttMs: HOME_LINK.rttMs,
    home: { queue, statsFile: join(tmp, `${queue}.stats.jsonl`) },
  });
  const [node, ...script] = nodeScript('neighbours/udp-flow');
  const echo = start(...inNs(t.server, node as string, [...script, 'echo', '--bind', SERVER_IP, '--port', '9001']));
  // --forceflush: without a terminal iperf3 buffers its output, and the ready line would never come.
  const iperfServer = start(...inNs(t.client, 'iperf3', ['-s', '-1', '--forceflush', '-B', CLIENT_IP, '-p', '5299']));
  try {
    await waitForLine(echo, (l) => l === 'ready', 10_000, 'UDP echo');
    await waitForLine(iperfServer, (l) => l.includes('Server listening'), 10_000, 'iperf3 server');
    const idle = await probe(t, 40);
    const loadFrom = Date.now();
    const client = start(...inNs(t.server, 'iperf3', ['-c', CLIENT_IP, '-p', '5299', '-t', String(seconds), '-C', 'cubic', '-J']));
    // A few seconds for cubic to fill the queue, then probes for the rest of the load.
    await sleep(4000);
    const loaded = await probe(t, Math.max(20, Math.floor(((seconds - 6) * 1000) / 50)));
    await client.exited;
    const loadTo = Date.now();
    let bulkMbps: number | undefined;
    try {
      bulkMbps =
        (JSON.parse(client.stdout()) as { end: { sum_received: { bits_per_second: number } } }).end.sum_received.bits_per_second / 1e6;
    } catch {
      bulkMbps = undefined;
    }
    const samples = (t.delayLine?.readStats(0) ?? []).filter((s) => s.t >= loadFrom + 4000 && s.t <= loadTo);
    const waits = samples.map((s) => s.waitMs);
    return {
      queue,
      idle,
      loaded,
      bulkMbps,
      backlogWaitP50Ms: quantile(waits, 0.5),
      backlogWaitP95Ms: quantile(waits, 0.95),
      linkDrops: samples.length > 1 ? samples[samples.length - 1]!.drops - samples[0]!.drops : undefined,
    };
  } finally {
    await echo.stop();
    await iperfServer.stop();
    await t.delayLine?.stop();
    destroyTopology(t);
  }
}

function f(x: number | undefined, d = 1): string {
  return x === undefined ? '—' : x.toFixed(d);
}

export function checkTable(checks: QueueCheck[]): string {
  const L = [
    '| queue | probe RTT idle p50 (ms) | under bulk TCP: probe RTT p50 / p95 (ms) | probes lost | bulk TCP (Mbit/s) | link backlog as wait p50 / p95 (ms) | link drops |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const c of checks) {
    L.push(
      `| ${c.queue} | ${f(quantile(c.idle.rttMs, 0.5))} | ${f(quantile(c.loaded.rttMs, 0.5))} / ${f(quantile(c.loaded.rttMs, 0.95))} | ${c.loaded.lost} of ${c.loaded.sent} | ` +
        `${f(c.bulkMbps)} | ${f(c.backlogWaitP50Ms)} / ${f(c.backlogWaitP95Ms)} | ${c.linkDrops ?? '—'} |`,
    );
  }
  return L.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { queue: { type: 'string' }, seconds: { type: 'string' } } });
  const queues = (values.queue ?? HOME_QUEUES.join(',')).split(',').map((s) => s.trim());
  for (const q of queues) if (!isHomeQueue(q)) throw new Error(`--queue: unknown queue ${q} (choose from ${HOME_QUEUES.join(', ')})`);
  const seconds = Number(values.seconds ?? 20);
  if (!Number.isFinite(seconds) || seconds < 10) throw new Error(`--seconds must be a number ≥ 10, got ${values.seconds}`);
  removeLeftovers();
  const tmp = mkdtempSync(join(tmpdir(), 'sammy-home-'));
  cleanupOnExit(
    () => {
      killAllChildren();
      destroyTopology(namesFor(process.pid));
      rmSync(tmp, { recursive: true, force: true });
    },
    (line) => console.error(line),
  );
  const checks: QueueCheck[] = [];
  for (const q of queues as HomeQueue[]) {
    console.error(`home link, ${q}: ${HOME_QUEUE_SPECS[q].label}`);
    checks.push(await check(q, seconds, tmp));
  }
  console.log(checkTable(checks));
}

main().catch((err: Error) => {
  console.error(`check:home-link: ${err.message}`);
  process.exit(1);
});

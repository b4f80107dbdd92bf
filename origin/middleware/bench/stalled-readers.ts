/**
 * 500 stalled readers + 100 normal paced clients at 8 Mbps, on loopback. The stalled readers (stall-clients.ts,
 * a process of their own) each ask for a large paced segment and never read. In one run: 100 normal clients and
 * a manifest prober alone, then the same with the stalled readers connected; then what becomes of the stalled
 * readers (dropped by the middleware's progress timeout, if it has one) and of the memory they held.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PROGRESS_TIMEOUT_MS } from '../src/options.js';
import { cmcdQuery } from '../test/helpers.js';
import { closeChild, nextMessage, spawnNodeChild } from './child-process.js';
import { pacedLoad, probeManifest } from './clients.js';
import { openFileLimit } from './process-limits.js';
import { startServer, type BenchServer } from './server-process.js';
import { formatSocketMemory, socketMemory, type SocketMemory } from './socket-memory.js';
import { mb, median, percentile, sleep, until } from './stats.js';
import type { Summary } from './summary.js';

const STALLED = 500;
const NORMAL = 100;
const KBPS = 8000;
/** Normal clients: two 2 s segments each, one after the other on a kept-alive connection. */
const SEGMENT_BYTES = 2 * 1_000_000;
const SEGMENTS = 2;
/** The stalled readers' segment: 16 s at 8 Mbps, far more than any socket buffer holds. */
const STALL_BYTES = 16_000_000;
/** The middleware's progressTimeoutMs for this run: longer than a load phase, short enough to watch. */
export const BENCH_PROGRESS_TIMEOUT_MS = 10_000;
/** Descriptors: the stalled readers, the normal clients and the prober, with room to spare. */
const NOFILE = 4096;
const MANIFEST = '/media/test/manifest.mpd';

export function writeStalledReaderMedia(mediaDir: string): void {
  writeFileSync(join(mediaDir, 'test', 'normal.m4s'), randomBytes(SEGMENT_BYTES));
  writeFileSync(join(mediaDir, 'test', 'stall.m4s'), randomBytes(STALL_BYTES));
}

interface Phase {
  p5: number;
  minRatio: number;
  errors: string[];
  manifestP95Ms: number;
  manifestMedianMs: number;
  manifestErrors: number;
  seconds: number;
  aggregateMbps: number;
  /** Server CPU seconds over the phase. */
  serverCpuS: number;
}

async function loadPhase(server: BenchServer): Promise<Phase> {
  const cpuBefore = await server.cpuSeconds();
  const load = pacedLoad(server.url, {
    clients: NORMAL,
    kbps: KBPS,
    segments: SEGMENTS,
    file: 'normal.m4s',
    bytes: SEGMENT_BYTES,
    spreadMs: 500,
  });
  const probe = probeManifest(server.url, MANIFEST, load);
  const [l, p] = await Promise.all([load, probe]);
  const serverCpuS = (await server.cpuSeconds()) - cpuBefore;
  return {
    serverCpuS,
    p5: percentile(l.ratios, 5),
    minRatio: Math.min(...l.ratios),
    errors: l.errors,
    manifestP95Ms: percentile(p.latenciesMs, 95),
    manifestMedianMs: median(p.latenciesMs),
    manifestErrors: p.errors,
    seconds: l.seconds,
    aggregateMbps: l.aggregateMbps,
  };
}

function printPhase(name: string, p: Phase): void {
  console.log(
    `${name.padEnd(22)} achieved/rtp p5 ${p.p5.toFixed(3)} (min ${p.minRatio.toFixed(3)}), ${p.errors.length} errors; ` +
      `manifest median ${p.manifestMedianMs.toFixed(1)} ms, p95 ${p.manifestP95Ms.toFixed(1)} ms, ${p.manifestErrors} errors; ${p.seconds.toFixed(1)} s, ${p.aggregateMbps.toFixed(0)} Mbps in all, server CPU ${p.serverCpuS.toFixed(1)} s`,
  );
  if (p.errors.length) console.log(`  first errors: ${[...new Set(p.errors)].slice(0, 3).join('; ')}`);
}

async function memoryLine(label: string, server: BenchServer): Promise<{ mem: SocketMemory; rss: number; connections: number }> {
  const stats = await server.stats();
  const mem = socketMemory(server.port);
  console.log(
    `${label.padEnd(22)} origin RSS ${mb(stats.rssBytes)}, ${stats.connections} connections, ${stats.activeResponses} responses in flight; ${formatSocketMemory(mem)}`,
  );
  return { mem, rss: stats.rssBytes, connections: stats.connections };
}

export async function stalledReadersBench(mediaDir: string, summary: Summary): Promise<void> {
  console.log(`\n== ${STALLED} stalled readers + ${NORMAL} normal clients at ${KBPS / 1000} Mbps (loopback)`);
  console.log(
    `progressTimeoutMs: ${BENCH_PROGRESS_TIMEOUT_MS} ms for this run (default ${DEFAULT_PROGRESS_TIMEOUT_MS} ms): no byte acknowledged for that long → connection destroyed`,
  );
  const server = await startServer(
    { mediaDir, mode: 'kernel', options: { progressTimeoutMs: BENCH_PROGRESS_TIMEOUT_MS } },
    { nofile: NOFILE },
  );
  let stallers: ReturnType<typeof spawnNodeChild> | undefined;
  try {
    const serverLimit = (await server.stats()).nofile;
    console.log(`open-file soft limits: origin ${serverLimit}, this client process ${openFileLimit()}`);
    const before = await memoryLine('before', server);

    const alone = await loadPhase(server);
    printPhase('without stalled', alone);

    stallers = spawnNodeChild(
      new URL('./stall-clients.ts', import.meta.url),
      [JSON.stringify({ host: '127.0.0.1', port: server.port, count: STALLED, path: `/media/test/stall.m4s?${cmcdQuery(KBPS)}` })],
      { nofile: NOFILE },
    );
    const stallStart = performance.now();
    const opened = await nextMessage<{ opened: number; failed: number; nofile: number }>(stallers, 60_000);
    console.log(`stalled readers: ${opened.opened} connected, ${opened.failed} failed (their process's open-file limit ${opened.nofile})`);
    // Every stalled response started, and the send queues full (they stop growing).
    await until(async () => (await server.stats()).activeResponses >= opened.opened, 30_000, 200);
    let last = -1;
    await until(
      () => {
        const now = socketMemory(server.port).serverBytes;
        const settled = now > 0 && Math.abs(now - last) < 0.02 * now;
        last = now;
        return settled;
      },
      15_000,
      500,
    );
    // Their windows are closed by now: no byte has been acknowledged since about here.
    const settledAt = performance.now();
    const during = await memoryLine(`with ${STALLED} stalled`, server);
    const perStalled = (during.mem.serverBytes - before.mem.serverBytes) / Math.max(1, opened.opened);
    console.log(`  ≈ ${(perStalled / 1024).toFixed(0)} KB of kernel memory per stalled reader on the server side`);

    const withStalled = await loadPhase(server);
    printPhase('with stalled', withStalled);

    // What happens to the stalled readers: wait for the progress timeout (plus polling slack) to drop them.
    // Waits up to 3× the target so a late drop is still timed; the verdict is against timeout + 10 s.
    const waitMs = 3 * (BENCH_PROGRESS_TIMEOUT_MS + 10_000) - (performance.now() - stallStart);
    const gone = await until(
      async () => (await server.stats()).connections === 0 && socketMemory(server.port).serverBytes < 1e6,
      Math.max(0, waitMs),
      250,
    );
    const droppedAfterS = (performance.now() - stallStart) / 1000;
    const sinceSettledS = (performance.now() - settledAt) / 1000;
    const dropped = gone && sinceSettledS <= (BENCH_PROGRESS_TIMEOUT_MS + 5_000) / 1000;
    const held = await memoryLine(
      gone
        ? `dropped at ${droppedAfterS.toFixed(1)} s (${sinceSettledS.toFixed(1)} s after queues full)`
        : `still held at ${droppedAfterS.toFixed(1)} s`,
      server,
    );
    await closeChild(stallers, 2000);
    stallers = undefined;
    await sleep(500);
    const after = await memoryLine('stalled clients gone', server);
    const again = await loadPhase(server);
    printPhase('without stalled again', again);

    const latencyRatio = withStalled.manifestP95Ms / alone.manifestP95Ms;
    console.log(`manifest p95 with / without stalled readers: ${latencyRatio.toFixed(2)}× (target ≤ 1.5×)`);
    summary.add(
      `${NORMAL} clients beside ${STALLED} stalled: p5 achieved/rtp`,
      '≥ 0.9',
      withStalled.p5.toFixed(3),
      withStalled.p5 >= 0.9 && withStalled.errors.length === 0,
    );
    // The same clients without the stalled readers, before and after: separates their cost from the host's CPU.
    summary.add(
      '  same, without stalled (before / after)',
      'for comparison',
      `${alone.p5.toFixed(3)} / ${again.p5.toFixed(3)} (${alone.aggregateMbps.toFixed(0)} / ${again.aggregateMbps.toFixed(0)} Mbps in all)`,
      'info',
    );
    summary.add(
      'manifest p95, with / without stalled',
      '≤ 1.5×',
      `${latencyRatio.toFixed(2)}× (${withStalled.manifestP95Ms.toFixed(1)} / ${alone.manifestP95Ms.toFixed(1)} ms)`,
      latencyRatio <= 1.5,
    );
    summary.add(
      'stalled readers dropped by the origin',
      `≤ ${BENCH_PROGRESS_TIMEOUT_MS / 1000} s + 5 s after queues full`,
      gone
        ? `${sinceSettledS.toFixed(1)} s (${droppedAfterS.toFixed(1)} s from connect), ${mb(held.mem.serverBytes)} left`
        : `${held.connections} still open at ${droppedAfterS.toFixed(0)} s, ${mb(held.mem.serverBytes)} held`,
      dropped,
    );
    summary.add(
      'origin RSS / server socket memory with stalled',
      'bounded',
      `${mb(during.rss)} / ${mb(during.mem.serverBytes)} → ${mb(after.rss)} / ${mb(after.mem.serverBytes)}`,
      'info',
    );
  } finally {
    if (stallers) await closeChild(stallers, 2000);
    await server.close();
  }
}

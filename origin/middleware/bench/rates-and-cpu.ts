/**
 * On loopback, against the origin in a child process:
 *  - `rates`: pacing error |achieved/requested − 1| (client-measured, request to last byte, on a warmed
 *    kept-alive connection) at 2–100 Mbps for each mechanism: median and worst over REPEATS transfers per rate
 *    (target: median ≤ 3%);
 *  - `cpu`: server CPU for 100 concurrent 8 Mbps paced streams against the same 100 streams unpaced — the same
 *    files over fresh connections, so the same bytes and the same connection work: the ratio of CPU time per
 *    transfer set is the cost of pacing (target: ≤ 1.2× for kernel pacing).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent } from 'node:http';
import { bodyBytesFor, cmcdQuery, ETHERNET_MSS, get, relativeError, warmAgent } from '../test/helpers.js';
import { startServer, type BenchServer } from './server-process.js';
import { median, pct, sleep } from './stats.js';
import type { Summary } from './summary.js';

export const RATES_MBPS = [2, 5, 10, 20, 50, 100] as const;
/** Seconds of data per rate transfer (at least 1 MB: see MIN_PACED_BODY_BYTES in test/helpers.ts). */
export const RATE_SECONDS = 1;
const REPEATS = 3;
const STREAMS = 100;
const STREAM_KBPS = 8000;
const STREAM_SECONDS = 3;
/** Rounds of (unpaced, kernel, userspace) CPU runs; the median is reported. */
const CPU_ROUNDS = 3;
const MECHANISMS = ['kernel', 'userspace'] as const;
type Mechanism = (typeof MECHANISMS)[number];

export function writeStreamMedia(mediaDir: string): void {
  writeFileSync(join(mediaDir, 'test', 'stream.m4s'), randomBytes(bodyBytesFor(STREAM_KBPS, STREAM_SECONDS)));
}

async function pacingErrors(server: BenchServer): Promise<Map<number, number[]>> {
  const agent: Agent = await warmAgent(server);
  const errors = new Map<number, number[]>();
  try {
    for (let i = 0; i < REPEATS; i++) {
      for (const mbps of RATES_MBPS) {
        const kbps = mbps * 1000;
        const res = await get(server, `/media/test/seg-${kbps}.m4s?${cmcdQuery(kbps)}`, { agent });
        if (res.status !== 200 || res.body.length !== bodyBytesFor(kbps, RATE_SECONDS)) throw new Error(`bad response at ${mbps} Mbps`);
        errors.set(mbps, [...(errors.get(mbps) ?? []), relativeError(res.rateKbps, kbps)]);
      }
    }
  } finally {
    agent.destroy();
  }
  return errors;
}

export async function ratesBench(mediaDir: string, summary: Summary): Promise<void> {
  console.log(
    `\n== Pacing error |achieved/requested − 1|, client-measured, ${REPEATS} transfers per rate (≥ 1 MB each) on a warmed connection, MSS ${ETHERNET_MSS}, loopback`,
  );
  console.log(`${'mechanism'.padEnd(10)} ${'Mbps'.padStart(5)} ${'median'.padStart(7)} ${'worst'.padStart(7)}`);
  const overall: Record<string, number[]> = {};
  for (const mechanism of MECHANISMS) {
    const server = await startServer({ mediaDir, mode: mechanism });
    try {
      for (const [mbps, errs] of await pacingErrors(server)) {
        overall[mechanism] = [...(overall[mechanism] ?? []), ...errs];
        console.log(`${mechanism.padEnd(10)} ${String(mbps).padStart(5)} ${pct(median(errs))} ${pct(Math.max(...errs))}`);
      }
    } finally {
      await server.close();
    }
  }
  for (const [mechanism, errs] of Object.entries(overall)) {
    const m = median(errs);
    console.log(`${mechanism.padEnd(10)} all rates: median ${pct(m).trim()}, worst ${pct(Math.max(...errs)).trim()} (target median ≤ 3%)`);
    summary.add(`pacing error 2–100 Mbps, ${mechanism}`, 'median ≤ 3%', pct(m).trim(), m <= 0.03);
  }
}

/** Server CPU seconds and wall seconds for STREAMS concurrent downloads of the stream file, paced or not. */
async function streamsCpu(server: BenchServer, paced: boolean): Promise<{ cpuS: number; wallS: number; bytes: number }> {
  const path = `/media/test/stream.m4s${paced ? `?${cmcdQuery(STREAM_KBPS)}` : ''}`;
  const before = await server.cpuSeconds();
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: STREAMS }, () => get(server, path)));
  const wallS = (performance.now() - started) / 1000;
  // Records are taken once the last byte is acknowledged: let the server finish its bookkeeping too.
  await sleep(300);
  const cpuS = (await server.cpuSeconds()) - before;
  if (results.some((r) => r.status !== 200)) throw new Error('a stream failed');
  return { cpuS, wallS, bytes: results.reduce((n, r) => n + r.body.length, 0) };
}

export async function cpuBench(mediaDir: string, summary: Summary): Promise<void> {
  console.log(
    `\n== Server CPU, ${STREAMS} concurrent streams of ${bodyBytesFor(STREAM_KBPS, STREAM_SECONDS) / 1e6} MB, paced at ${STREAM_KBPS} kbps vs unpaced; median of ${CPU_ROUNDS} rounds`,
  );
  const servers = {
    kernel: await startServer({ mediaDir, mode: 'kernel' }),
    userspace: await startServer({ mediaDir, mode: 'userspace' }),
  };
  const runs: Record<'unpaced' | Mechanism, { cpuS: number; wallS: number; bytes: number }[]> = { unpaced: [], kernel: [], userspace: [] };
  try {
    for (let round = 0; round < CPU_ROUNDS; round++) {
      runs.unpaced.push(await streamsCpu(servers.kernel, false));
      for (const m of MECHANISMS) runs[m].push(await streamsCpu(servers[m], true));
    }
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.close()));
  }
  const unpacedCpu = median(runs.unpaced.map((r) => r.cpuS));
  for (const [name, rs] of Object.entries(runs)) {
    const cpuS = median(rs.map((r) => r.cpuS));
    const wallS = median(rs.map((r) => r.wallS));
    const mbPerCpuS = rs[0]!.bytes / 1e6 / cpuS;
    const ratio = cpuS / unpacedCpu;
    const shown = name === 'unpaced' ? '' : `  ${ratio.toFixed(2)}× unpaced${name === 'kernel' ? ' (target ≤ 1.2×)' : ''}`;
    console.log(
      `${name.padEnd(10)} CPU ${cpuS.toFixed(2)} s  wall ${wallS.toFixed(2)} s  ${mbPerCpuS.toFixed(0)} MB per CPU-second${shown}`,
    );
    if (name === 'kernel') summary.add('server CPU, kernel-paced / unpaced', '≤ 1.2×', `${ratio.toFixed(2)}×`, ratio <= 1.2);
  }
  console.log("(server CPU is the server process's user + system time, which misses softirq work the kernel accounts to");
  console.log(' whichever task is running, e.g. its pacing timers.)');
}

/**
 * `npm run bench:varnish`: through a real varnishd running sammy.vcl in front of the reference origin, on
 * loopback, with Ethernet-size segments and warm, kept-alive connections (cache hits):
 *   1. pacing error at 2–100 Mbps (target: median ≤ 3%);
 *   2. CPU of Varnish's cache process delivering 100 concurrent streams paced at 8 Mbps, against the same
 *      streams unpaced (target: ≤ 1.2×), from /proc/<pid>/stat (utime + stime).
 * Options: --reps <n> (transfers per rate, default 3), --streams <n> (default 100), --mb <n> (MB per stream, default 3).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startVarnish } from '../src/varnishd.js';
import { cmcdQuery, startMediaOrigin } from '../test/edge-fixture.js';
import { get, warmMssAgent } from '../test/edge-client.js';

const { values } = parseArgs({
  options: { reps: { type: 'string', default: '3' }, streams: { type: 'string', default: '100' }, mb: { type: 'string', default: '3' } },
});
const REPS = Number(values.reps);
const STREAMS = Number(values.streams);
const STREAM_BYTES = Math.round(Number(values.mb) * 1_000_000);
const RATES_KBPS = [2000, 5000, 10_000, 20_000, 40_000, 60_000, 100_000];
const STREAM_KBPS = 8000;
if (![REPS, STREAMS, STREAM_BYTES].every((n) => Number.isInteger(n) && n > 0)) {
  console.error('bench:varnish: --reps, --streams and --mb must be positive integers');
  process.exit(2);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const pct = (x: number) => `${(x * 100).toFixed(2)}%`;

/** CPU seconds (user + system) of a process, from /proc/<pid>/stat (fields 14 and 15, in clock ticks). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command name, field 3 is index 0: utime is field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const media = await startMediaOrigin(RATES_KBPS);
writeFileSync(join(media.mediaDir, 'test', 'stream.m4s'), randomBytes(STREAM_BYTES));
const varnish = await startVarnish({
  backendPort: media.origin.port,
  // Room for 100 streams (a worker thread each), and warm connections that wait for the next arm.
  args: ['-p', 'thread_pool_min=200', '-p', 'timeout_idle=120'],
});
const child = varnish.childPid();
try {
  console.log(`varnishd ${varnish.url} (cache process ${child}) in front of ${media.origin.url}\n`);

  // 1. Pacing error per rate.
  console.log(`Pacing error through Varnish (${REPS} cache-hit transfers per rate, ≥ 1.2 s each, Ethernet MSS, warm connection)`);
  console.log('rate Mbps   achieved Mbps (each)                 median error');
  const errors: number[] = [];
  for (const kbps of RATES_KBPS) {
    const agent = await warmMssAgent(varnish, '/media/test/warm.m4s');
    const path = `/media/test/seg-${kbps}.m4s?${cmcdQuery(kbps)}`;
    await get(varnish, path.replace(/\?.*/, ''), { agent }); // fill the cache, unpaced
    const rates: number[] = [];
    for (let i = 0; i < REPS; i++) rates.push((await get(varnish, path, { agent })).rateKbps);
    agent.destroy();
    const errs = rates.map((r) => Math.abs(r / kbps - 1));
    errors.push(...errs);
    console.log(
      `${String(kbps / 1000).padStart(9)}   ${rates
        .map((r) => (r / 1000).toFixed(2).padStart(7))
        .join(' ')
        .padEnd(36)} ${pct(median(errs)).padStart(8)}`,
    );
  }
  const medianError = median(errors);
  console.log(`median error over all transfers: ${pct(medianError)} (target ≤ 3%: ${medianError <= 0.03 ? 'met' : 'NOT met'})\n`);

  // 2. CPU, paced against unpaced.
  console.log(
    `Varnish CPU: ${STREAMS} concurrent streams of ${(STREAM_BYTES / 1e6).toFixed(1)} MB (cache hits), paced at ${STREAM_KBPS / 1000} Mbps vs unpaced`,
  );
  const agents = await Promise.all(Array.from({ length: STREAMS }, () => warmMssAgent(varnish, '/media/test/warm.m4s')));
  await get(varnish, '/media/test/stream.m4s', { agent: agents[0] });
  const arm = async (paced: boolean) => {
    const path = paced ? `/media/test/stream.m4s?${cmcdQuery(STREAM_KBPS)}` : '/media/test/stream.m4s';
    const cpu0 = cpuSeconds(child);
    const t0 = performance.now();
    const results = await Promise.all(agents.map((agent) => get(varnish, path, { agent })));
    const wall = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(child) - cpu0;
    if (results.some((r) => r.status !== 200 || r.body.length !== STREAM_BYTES)) throw new Error('a stream failed');
    return { cpu, wall, medianKbps: median(results.map((r) => r.rateKbps)) };
  };
  const runs: Record<'paced' | 'unpaced', Array<Awaited<ReturnType<typeof arm>>>> = { paced: [], unpaced: [] };
  // Alternate the arms so load from other processes falls on both.
  for (let i = 0; i < 2; i++) {
    runs.unpaced.push(await arm(false));
    runs.paced.push(await arm(true));
  }
  for (const a of agents) a.destroy();
  for (const [name, list] of Object.entries(runs)) {
    for (const r of list) {
      console.log(
        `  ${name.padEnd(8)} CPU ${r.cpu.toFixed(2)} s over ${r.wall.toFixed(1)} s wall, median stream ${(r.medianKbps / 1000).toFixed(1)} Mbps`,
      );
    }
  }
  const cpuPaced = median(runs.paced.map((r) => r.cpu));
  const cpuUnpaced = median(runs.unpaced.map((r) => r.cpu));
  const ratio = cpuPaced / cpuUnpaced;
  console.log(`CPU paced / unpaced: ${ratio.toFixed(2)}× (target ≤ 1.2×: ${ratio <= 1.2 ? 'met' : 'NOT met'})`);
} finally {
  await varnish.close();
  await media.remove();
}

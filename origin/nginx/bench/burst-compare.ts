/**
 * `npm run bench:bursts -w @sammy/nginx`: how the bytes of one paced response arrive at the client,
 * through nginx's limit_rate (userspace timers) and through Varnish's socket pace (kernel pacing), on
 * loopback with Ethernet-size segments and a warm connection (cache hits). Samples the client socket's
 * reads (no tcpdump): bytes per 1 ms and 10 ms, the start burst, and the achieved rate.
 * Options: --kbps <n> (default 8000), --seconds <n> (body length at that rate, default 4).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';
import { startVarnish } from '../../varnish/src/varnishd.js';
import { cmcdQuery, startMediaOrigin } from '../../varnish/test/edge-fixture.js';
import { get, warmMssAgent, type MssAgent } from '../../varnish/test/edge-client.js';
import { startNginx } from '../src/nginx.js';
import { burstsOf } from '@sammy/test-support';

const { values } = parseArgs({ options: { kbps: { type: 'string', default: '8000' }, seconds: { type: 'string', default: '4' } } });
const KBPS = Number(values.kbps);
const SECONDS = Number(values.seconds);
if (!(KBPS > 0 && SECONDS > 0)) {
  console.error('bench:bursts: --kbps and --seconds must be positive numbers');
  process.exit(2);
}
const BYTES = Math.round(kbpsToBytesPerSecond(KBPS) * SECONDS);

/** (ms since the request, bytes) for each read of the body. */
function sample(base: { url: string }, path: string, agent: MssAgent): Promise<Array<[number, number]>> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const reads: Array<[number, number]> = [];
    const req = request(`${base.url}${path}`, { agent }, (res) => {
      res.on('data', (d: Buffer) => reads.push([performance.now() - t0, d.length]));
      res.on('end', () => resolve(reads));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function summarize(name: string, reads: Array<[number, number]>): void {
  const total = reads.reduce((s, [, n]) => s + n, 0);
  const end = reads.at(-1)![0];
  const perMs = kbpsToBytesPerSecond(KBPS) / 1000;
  const bins = (width: number) => {
    const counts = new Array(Math.ceil(end / width) + 1).fill(0) as number[];
    for (const [t, n] of reads) counts[Math.floor(t / width)]! += n;
    return counts;
  };
  const pctl = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  const b1 = bins(1);
  const b10 = bins(10);
  const first100 = reads.filter(([t]) => t < 100).reduce((s, [, n]) => s + n, 0);
  // A burst: reads less than 1 ms apart, summed.
  const bursts = burstsOf(reads);
  console.log(`${name}`);
  console.log(
    `  ${(total / 1e6).toFixed(2)} MB in ${(end / 1000).toFixed(2)} s = ${((total * 8) / end / 1000).toFixed(2)} Mbps (asked ${KBPS / 1000})`,
  );
  console.log(`  first 100 ms: ${(first100 / 1000).toFixed(0)} KB (${(first100 / (perMs * 100)).toFixed(1)}× the rate's 100 ms)`);
  console.log(
    `  1 ms bins with data: ${((b1.filter((n) => n > 0).length / b1.length) * 100).toFixed(1)}%; bytes per busy 1 ms bin p50 ${pctl(
      b1.filter((n) => n > 0),
      0.5,
    )} / p99 ${pctl(
      b1.filter((n) => n > 0),
      0.99,
    )} (rate: ${perMs.toFixed(0)}/ms)`,
  );
  console.log(
    `  10 ms bins: p50 ${(pctl(b10, 0.5) / 1000).toFixed(1)} KB, p99 ${(pctl(b10, 0.99) / 1000).toFixed(1)} KB, max ${(Math.max(...b10) / 1000).toFixed(1)} KB (rate: ${((perMs * 10) / 1000).toFixed(1)} KB)`,
  );
  console.log(
    `  bursts (reads < 1 ms apart): ${bursts.length}, p50 ${(pctl(bursts, 0.5) / 1000).toFixed(1)} KB, p99 ${(pctl(bursts, 0.99) / 1000).toFixed(1)} KB, max ${(Math.max(...bursts) / 1000).toFixed(1)} KB`,
  );
}

const media = await startMediaOrigin([]);
writeFileSync(join(media.mediaDir, 'test', 'burst.m4s'), randomBytes(BYTES));
const varnish = await startVarnish({ backendPort: media.origin.port });
const nginx = await startNginx({ backendPort: media.origin.port });
try {
  console.log(
    `One ${(BYTES / 1e6).toFixed(2)} MB response (${SECONDS} s at ${KBPS / 1000} Mbps), cache hit, warm Ethernet-MSS connection, loopback\n`,
  );
  for (const [name, edge] of [
    ['Varnish, kernel pacing (tcp.set_socket_pace)', varnish],
    ['nginx, limit_rate (userspace)', nginx],
  ] as const) {
    const agent = await warmMssAgent(edge, '/media/test/warm.m4s');
    await get(edge, '/media/test/burst.m4s', { agent }); // fill the cache
    summarize(name, await sample(edge, `/media/test/burst.m4s?${cmcdQuery(KBPS)}`, agent));
    agent.destroy();
  }
} finally {
  await nginx.close();
  await varnish.close();
  await media.remove();
}

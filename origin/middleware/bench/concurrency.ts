/**
 * 300 concurrent paced clients on loopback: every segment complete, each at its pace. At 2 Mbps: 300 × 2 = 600 Mbps
 * in all, which the 2-core machine this was written on moves with clients and server on the same cores (its unpaced
 * ceiling for 300 clients, printed first, was 0.93 Gbps with other test suites running); at 8 Mbps (2.4 Gbps) the
 * load is CPU-bound, not pace-bound.
 */
import { pacedLoad } from './clients.js';
import { startServer } from './server-process.js';
import { percentile } from './stats.js';
import type { Summary } from './summary.js';

const CLIENTS = 300;
const KBPS = 2000;
const SEGMENTS = 2;
/** normal.m4s, written by stalled-readers.ts: 2 MB, 8 s at 2 Mbps. */
const FILE = 'normal.m4s';
const BYTES = 2_000_000;

export async function concurrencyBench(mediaDir: string, summary: Summary): Promise<void> {
  console.log(
    `\n== ${CLIENTS} concurrent paced clients at ${KBPS / 1000} Mbps, ${SEGMENTS} segments of ${BYTES / 1e6} MB each on a kept-alive connection (loopback)`,
  );
  const server = await startServer({ mediaDir, mode: 'kernel' }, { nofile: 4096 });
  try {
    // What this machine moves for this many clients without pacing: if it is below what the paced load asks for,
    // a ratio under 0.9 is CPU (clients and server share the host's cores), not pacing.
    const ceiling = await pacedLoad(server.url, {
      clients: CLIENTS,
      kbps: KBPS,
      segments: 1,
      file: FILE,
      bytes: BYTES,
      spreadMs: 1000,
      unpaced: true,
    });
    console.log(
      `unpaced, the same ${CLIENTS} clients: ${ceiling.aggregateMbps.toFixed(0)} Mbps in all (${ceiling.errors.length} errors) — the paced load asks for ${(CLIENTS * KBPS) / 1000} Mbps`,
    );
    const r = await pacedLoad(server.url, { clients: CLIENTS, kbps: KBPS, segments: SEGMENTS, file: FILE, bytes: BYTES, spreadMs: 1000 });
    const p5 = percentile(r.ratios, 5);
    console.log(
      `paced: ${r.ratios.length} segments in ${r.seconds.toFixed(1)} s (${r.aggregateMbps.toFixed(0)} Mbps in all), ${r.errors.length} errors; achieved/rtp p5 ${p5.toFixed(3)}, median ${percentile(r.ratios, 50).toFixed(3)}, min ${Math.min(...r.ratios).toFixed(3)}`,
    );
    if (r.errors.length) console.log(`  first errors: ${[...new Set(r.errors)].slice(0, 3).join('; ')}`);
    summary.add(`${CLIENTS} concurrent clients: errors`, '0', String(r.errors.length), r.errors.length === 0);
    summary.add(`${CLIENTS} concurrent clients: p5 achieved/rtp`, '≥ 0.9', p5.toFixed(3), p5 >= 0.9);
  } finally {
    await server.close();
  }
}

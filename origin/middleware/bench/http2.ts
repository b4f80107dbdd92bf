/**
 * The same figures over HTTP/2 (TLS, node:http2 clients with Chromium's flow-control windows) on loopback,
 * against the origin in a child process:
 *  - pacing error at 2–100 Mbps, one stream at a time on one warmed session (target: median ≤ 3%);
 *  - server CPU for 100 sessions each downloading one 8 Mbps paced stream, against the same unpaced
 *    (target ≤ 1.2×): the TLS and HTTP/2 work is the same in both, so the ratio is the cost of pacing.
 */
import { relativeError } from '../test/helpers.js';
import { h2Connect, h2Get } from '../test/http2-helpers.js';
import { bodyBytesFor, cmcdQuery } from '../test/helpers.js';
import { RATE_SECONDS, RATES_MBPS } from './rates-and-cpu.js';
import { startServer, type BenchServer } from './server-process.js';
import { median, pct, sleep } from './stats.js';
import type { Summary } from './summary.js';

const REPEATS = 3;
const STREAMS = 100;
const STREAM_KBPS = 8000;
const CPU_ROUNDS = 3;

function trusted(server: BenchServer): { url: string; cert: string } {
  if (!server.cert) throw new Error('the HTTP/2 bench server sent no certificate');
  return { url: server.url, cert: server.cert };
}

async function h2PacingErrors(server: BenchServer): Promise<Map<number, number[]>> {
  const session = await h2Connect(trusted(server));
  const errors = new Map<number, number[]>();
  try {
    await h2Get(session, '/media/test/warm.m4s');
    for (let i = 0; i < REPEATS; i++) {
      for (const mbps of RATES_MBPS) {
        const kbps = mbps * 1000;
        const res = await h2Get(session, `/media/test/seg-${kbps}.m4s?${cmcdQuery(kbps)}`);
        if (res.status !== 200 || res.bytes !== bodyBytesFor(kbps, RATE_SECONDS)) throw new Error(`bad h2 response at ${mbps} Mbps`);
        errors.set(mbps, [...(errors.get(mbps) ?? []), relativeError(res.rateKbps, kbps)]);
      }
    }
  } finally {
    session.close();
  }
  return errors;
}

async function h2StreamsCpu(server: BenchServer, paced: boolean): Promise<number> {
  const path = `/media/test/stream.m4s${paced ? `?${cmcdQuery(STREAM_KBPS)}` : ''}`;
  const sessions = await Promise.all(Array.from({ length: STREAMS }, () => h2Connect(trusted(server))));
  const before = await server.cpuSeconds();
  try {
    const results = await Promise.all(sessions.map((s) => h2Get(s, path)));
    if (results.some((r) => r.status !== 200)) throw new Error('an h2 stream failed');
    await sleep(300);
    return (await server.cpuSeconds()) - before;
  } finally {
    for (const s of sessions) s.close();
  }
}

export async function http2Bench(mediaDir: string, summary: Summary): Promise<void> {
  console.log(`\n== HTTP/2 over TLS: pacing error, ${REPEATS} transfers per rate on one warmed session, loopback`);
  const server = await startServer({ mediaDir, mode: 'kernel', http2: true });
  try {
    const all: number[] = [];
    for (const [mbps, errs] of await h2PacingErrors(server)) {
      all.push(...errs);
      console.log(`h2 kernel ${String(mbps).padStart(5)} Mbps ${pct(median(errs))} ${pct(Math.max(...errs))}`);
    }
    const m = median(all);
    console.log(`h2 kernel all rates: median ${pct(m).trim()}, worst ${pct(Math.max(...all)).trim()} (target median ≤ 3%)`);
    summary.add('h2: pacing error 2–100 Mbps, kernel', 'median ≤ 3%', pct(m).trim(), m <= 0.03);

    console.log(`\n== HTTP/2: server CPU, ${STREAMS} sessions × one ${STREAM_KBPS} kbps stream, paced vs unpaced (median of ${CPU_ROUNDS} rounds, handshakes excluded)`);
    const unpaced: number[] = [];
    const paced: number[] = [];
    for (let round = 0; round < CPU_ROUNDS; round++) {
      unpaced.push(await h2StreamsCpu(server, false));
      paced.push(await h2StreamsCpu(server, true));
    }
    const ratio = median(paced) / median(unpaced);
    console.log(`h2 unpaced CPU ${median(unpaced).toFixed(2)} s, kernel-paced ${median(paced).toFixed(2)} s: ${ratio.toFixed(2)}× (target ≤ 1.2×)`);
    summary.add('h2: server CPU, kernel-paced / unpaced', '≤ 1.2×', `${ratio.toFixed(2)}×`, ratio <= 1.2);
  } finally {
    await server.close();
  }
}

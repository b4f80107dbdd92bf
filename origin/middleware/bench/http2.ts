/**
 * The same figures over HTTP/2 (TLS, node:http2 clients with Chromium's flow-control windows) on loopback,
 * against the origin in a child process:
 *  - pacing error at 2–100 Mbps, one stream at a time on one warmed session (target: median ≤ 3%);
 *  - server CPU for 100 sessions each downloading one 8 Mbps paced stream, against the same unpaced
 *    (target ≤ 2×): the TLS and HTTP/2 work is the same in both, so the ratio is the cost of pacing.
 *    It was ≤ 1.2× (1.18×) before the send gate, when the kernel took 2 MB of each 3 MB stream at
 *    once and only the rest was metered out; the gate meters every byte (1.6–1.7×), and buys the
 *    next two figures;
 *  - how soon a session busy with an 8 Mbps paced stream answers: a manifest request's first byte
 *    mid-stream, and a media request's after the client reset the stream (a seek), against the send
 *    gate's time at the pace (src/socket/connection-socket.ts: what the connection may hold unsent).
 */
import { relativeError } from '../test/helpers.js';
import { h2Connect, h2Get, h2Reset, sendGateAt } from '../test/http2-helpers.js';
import { bodyBytesFor, cmcdQuery } from '../test/helpers.js';
import { RATE_SECONDS, RATES_MBPS } from './rates-and-cpu.js';
import { startServer, type BenchServer } from './server-process.js';
import { median, pct, sleep } from './stats.js';
import type { Summary } from './summary.js';

const REPEATS = 3;
const STREAMS = 100;
const STREAM_KBPS = 8000;
const CPU_ROUNDS = 3;
/** Paced CPU / unpaced, at most (see above). */
const MAX_CPU_RATIO = 2;
const ANSWER_ROUNDS = 5;
/** How far into the paced stream the request comes: its send buffer (a second at the pace) would be full. */
const BUSY_AFTER_MS = 700;
const RESET_AFTER_BYTES = 600_000;

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

/** First-byte times (ms) on one session: idle, busy with a paced stream, and right after resetting it. */
async function h2Answers(server: BenchServer): Promise<{ idle: number[]; busy: number[]; afterReset: number[] }> {
  const session = await h2Connect(trusted(server));
  const stream = `/media/test/stream.m4s?${cmcdQuery(STREAM_KBPS)}`;
  const idle: number[] = [];
  const busy: number[] = [];
  const afterReset: number[] = [];
  try {
    await h2Get(session, '/media/test/warm.m4s');
    for (let i = 0; i < ANSWER_ROUNDS; i++) {
      idle.push((await h2Get(session, '/media/test/manifest.mpd', { 'cmcd-object': 'ot=m' })).firstByteMs);
      const paced = h2Get(session, stream);
      await sleep(BUSY_AFTER_MS);
      busy.push((await h2Get(session, '/media/test/manifest.mpd', { 'cmcd-object': 'ot=m' })).firstByteMs);
      await paced;
      await h2Reset(session, stream, RESET_AFTER_BYTES);
      afterReset.push((await h2Get(session, '/media/test/warm.m4s', { 'cmcd-object': 'ot=v' })).firstByteMs);
      await sleep(300);
    }
  } finally {
    session.close();
  }
  return { idle, busy, afterReset };
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

    console.log(
      `\n== HTTP/2: server CPU, ${STREAMS} sessions × one ${STREAM_KBPS} kbps stream, paced vs unpaced (median of ${CPU_ROUNDS} rounds, handshakes excluded)`,
    );
    const unpaced: number[] = [];
    const paced: number[] = [];
    for (let round = 0; round < CPU_ROUNDS; round++) {
      unpaced.push(await h2StreamsCpu(server, false));
      paced.push(await h2StreamsCpu(server, true));
    }
    const ratio = median(paced) / median(unpaced);
    console.log(
      `h2 unpaced CPU ${median(unpaced).toFixed(2)} s, kernel-paced ${median(paced).toFixed(2)} s: ${ratio.toFixed(2)}× (target ≤ ${MAX_CPU_RATIO}×)`,
    );
    summary.add('h2: server CPU, kernel-paced / unpaced', `≤ ${MAX_CPU_RATIO}×`, `${ratio.toFixed(2)}×`, ratio <= MAX_CPU_RATIO);

    const gateMs = sendGateAt(STREAM_KBPS).ms;
    console.log(
      `\n== HTTP/2: first byte on a session busy with a ${STREAM_KBPS} kbps paced stream (median of ${ANSWER_ROUNDS}; the send gate takes ${gateMs.toFixed(0)} ms at that pace)`,
    );
    const { idle, busy, afterReset } = await h2Answers(server);
    const ms = (v: number[]) => `${median(v).toFixed(0)} ms (worst ${Math.max(...v).toFixed(0)})`;
    console.log(`h2 idle session, a manifest: ${ms(idle)}`);
    console.log(`h2 ${BUSY_AFTER_MS} ms into the paced stream, a manifest (keeps the pace): ${ms(busy)}`);
    console.log(`h2 right after the client reset the paced stream, a media segment without rtp (unpaced): ${ms(afterReset)}`);
    summary.add('h2: first byte mid paced stream', `≤ send gate at the pace (${gateMs.toFixed(0)} ms)`, ms(busy), median(busy) <= gateMs);
    summary.add(
      'h2: first byte after a reset (seek)',
      `≤ send gate at the pace (${gateMs.toFixed(0)} ms)`,
      ms(afterReset),
      median(afterReset) <= gateMs,
    );
  } finally {
    await server.close();
  }
}

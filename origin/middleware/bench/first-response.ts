/**
 * First response on a new connection: is a 3 MB body paced at its rtp from its first byte? Each transfer opens
 * a new connection (no warm-up); the client measures from the request to the last byte, as a player does.
 * Settings: loopback with the test origin's Ethernet-sized MSS, loopback with its own 64 KB MSS (as a plain
 * `listen()` serves it, e.g. the reference server), and, as root, a 1500-byte-MTU veth pair between two network
 * namespaces, with the kernel's default TSO sizing and with `net.ipv4.tcp_tso_rtt_log = 0` in the server's namespace.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cmcdQuery, ETHERNET_MSS } from '../test/helpers.js';
import { closeChild, nextMessage, spawnNodeChild } from './child-process.js';
import { createVethPair, vethUnavailableReason } from './netns.js';
import { startServer, type BenchServer } from './server-process.js';
import { kb, median, pct } from './stats.js';
import type { Summary } from './summary.js';
import { timedGet } from './transfer.js';

export const FIRST_RESPONSE_RATES_MBPS = [4, 8, 12, 16, 20] as const;
export const FIRST_RESPONSE_BODY_BYTES = 3_000_000;
export const FIRST_RESPONSE_FILE = 'first.m4s';
const RUNS = 5;
const TARGET = 0.03;
/** The kernel leaves a connection's first 10 segments unpaced (tcp_update_skb_after_send: "data_segs_out >= 10"). */
const UNPACED_SEGMENTS = 10;
const LOOPBACK_MSS = 65_483;
const TSO_MAX_BYTES = 64 * 1024;

export interface FirstResponseSample {
  mbps: number;
  /** achieved / rtp − 1, request to last byte. */
  error: number;
  /** The same from the first body byte. */
  bodyError: number;
  aheadBytes: number;
  ttfbMs: number;
  minRttMs?: number;
  mechanism?: string;
  congestionControl?: string;
}

/** RUNS rounds; in each, every rate on its own new connection, side by side. */
export async function measureFirstResponses(baseUrl: string, runs = RUNS): Promise<FirstResponseSample[]> {
  const samples: FirstResponseSample[] = [];
  for (let run = 0; run < runs; run++) {
    const round = await Promise.all(
      FIRST_RESPONSE_RATES_MBPS.map(async (mbps) => {
        const kbps = mbps * 1000;
        const t = await timedGet(`${baseUrl}/media/test/${FIRST_RESPONSE_FILE}?${cmcdQuery(kbps)}`, { paceKbps: kbps });
        if (t.status !== 200 || t.bytes !== FIRST_RESPONSE_BODY_BYTES)
          throw new Error(`first response at ${mbps} Mbps: status ${t.status}, ${t.bytes} bytes`);
        return {
          mbps,
          error: t.rateKbps / kbps - 1,
          bodyError: t.bodyRateKbps / kbps - 1,
          aheadBytes: t.aheadBytes ?? 0,
          ttfbMs: t.ttfbMs,
          minRttMs: t.report.minRttMs,
          mechanism: t.report.mechanism,
          congestionControl: t.report.congestionControl,
        } satisfies FirstResponseSample;
      }),
    );
    samples.push(...round);
  }
  return samples;
}

export function writeFirstResponseMedia(mediaDir: string, body: Buffer): void {
  writeFileSync(join(mediaDir, 'test', FIRST_RESPONSE_FILE), body.subarray(0, FIRST_RESPONSE_BODY_BYTES));
}

/** Prints one setting's table; returns the median |error| over all its transfers and the median lead. */
function report(setting: string, samples: readonly FirstResponseSample[]): { medianAbsError: number; medianAhead: number } {
  const s0 = samples[0];
  const minRtts = samples.map((s) => s.minRttMs).filter((x): x is number => x !== undefined);
  console.log(
    `\n${setting}: ${samples.length / FIRST_RESPONSE_RATES_MBPS.length} new connections per rate, ${s0?.mechanism ?? '?'} pacing, ${s0?.congestionControl ?? '?'}` +
      `, min RTT at the request ${minRtts.length ? `${(median(minRtts) * 1000).toFixed(0)} µs` : 'n/a'}`,
  );
  console.log(
    `${'Mbps'.padStart(5)} ${'median'.padStart(7)} ${'|worst|'.padStart(7)} ${'body'.padStart(7)} ${'ahead'.padStart(7)} ${'ttfb'.padStart(7)}`,
  );
  for (const mbps of FIRST_RESPONSE_RATES_MBPS) {
    const at = samples.filter((s) => s.mbps === mbps);
    const worst = at.reduce((w, s) => (Math.abs(s.error) > Math.abs(w) ? s.error : w), 0);
    console.log(
      `${String(mbps).padStart(5)} ${pct(median(at.map((s) => s.error)), true)} ${pct(Math.abs(worst))} ${pct(median(at.map((s) => s.bodyError)), true)} ${kb(median(at.map((s) => s.aheadBytes))).padStart(7)} ${`${median(at.map((s) => s.ttfbMs)).toFixed(1)}ms`.padStart(7)}`,
    );
  }
  const medianAbsError = median(samples.map((s) => Math.abs(s.error)));
  const medianAhead = median(samples.map((s) => s.aheadBytes));
  console.log(
    `  all rates: median |error| ${pct(medianAbsError).trim()} (target ≤ 3%), median lead over a perfect pacer ${kb(medianAhead)} = ${pct(medianAhead / FIRST_RESPONSE_BODY_BYTES).trim()} of the body`,
  );
  return { medianAbsError, medianAhead };
}

async function onLoopback(mediaDir: string, nativeMss: boolean): Promise<FirstResponseSample[]> {
  const server: BenchServer = await startServer({ mediaDir, mode: 'kernel', nativeMss });
  try {
    return await measureFirstResponses(server.url);
  } finally {
    await server.close();
  }
}

/** The server in one namespace, the client (first-response-client.ts) in the other. */
async function onVeth(mediaDir: string, tsoRttLog: number | undefined): Promise<{ samples: FirstResponseSample[]; tsoRttLog: string }> {
  const veth = createVethPair();
  try {
    if (tsoRttLog !== undefined) veth.setSysctl(veth.serverNs, 'net.ipv4.tcp_tso_rtt_log', tsoRttLog);
    const effective = veth.readSysctl(veth.serverNs, 'net.ipv4.tcp_tso_rtt_log');
    const server = await startServer({ mediaDir, mode: 'kernel', host: veth.serverAddress, nativeMss: true }, { netns: veth.serverNs });
    try {
      const client = spawnNodeChild(
        new URL('./first-response-client.ts', import.meta.url),
        [JSON.stringify({ url: server.url, runs: RUNS })],
        {
          netns: veth.clientNs,
        },
      );
      try {
        const reply = await nextMessage<{ samples: FirstResponseSample[] } | { error: string }>(client, 300_000);
        if ('error' in reply) throw new Error(`veth client: ${reply.error}`);
        return { samples: reply.samples, tsoRttLog: effective };
      } finally {
        await closeChild(client, 2000);
      }
    } finally {
      await server.close();
    }
  } finally {
    veth.remove();
  }
}

export async function firstResponseBench(mediaDir: string, summary: Summary): Promise<void> {
  console.log(
    `\n== First response on a new connection: ${FIRST_RESPONSE_BODY_BYTES / 1e6} MB at ${FIRST_RESPONSE_RATES_MBPS.join(', ')} Mbps, ` +
      `client-measured from the request (connect included) to the last byte; the rates run side by side, each on its own connection`,
  );
  console.log('   median/|worst|: achieved/rtp − 1 from the request; body: the median from the first body byte (pacing alone);');
  console.log(
    '   ahead: the largest lead of the bytes received over a perfect pacer started at the first byte; ttfb: request to first byte.',
  );

  const lo = report(
    `loopback, MSS ${ETHERNET_MSS} (TCP_MAXSEG on the listening socket, as the test origin)`,
    await onLoopback(mediaDir, false),
  );
  summary.add(`first response, loopback MSS ${ETHERNET_MSS}`, 'median ≤ 3%', pct(lo.medianAbsError).trim(), lo.medianAbsError <= TARGET);
  const native = report(
    `loopback, its own MSS ${LOOPBACK_MSS} (a plain listen(), as the reference server)`,
    await onLoopback(mediaDir, true),
  );
  summary.add(
    `first response, loopback MSS ${LOOPBACK_MSS}`,
    'median ≤ 3%',
    pct(native.medianAbsError).trim(),
    native.medianAbsError <= TARGET,
  );
  console.log(
    `  why: the kernel leaves a connection's first ${UNPACED_SEGMENTS} segments unpaced: ${UNPACED_SEGMENTS} × ${LOOPBACK_MSS} B = ${kb(UNPACED_SEGMENTS * LOOPBACK_MSS)} on loopback ` +
      `(as much as the client's initial receive window lets out), against ${UNPACED_SEGMENTS} × ${ETHERNET_MSS} B = ${kb(UNPACED_SEGMENTS * ETHERNET_MSS)} at an Ethernet MSS. ` +
      `After that it paces whole TSO packets, ${kb(TSO_MAX_BYTES)} while the min RTT is under 512 µs (tcp_tso_rtt_log 9): the first leaves without waiting.`,
  );

  const unavailable = vethUnavailableReason();
  if (unavailable) {
    console.log(`\nveth (1500-byte MTU between two namespaces): skipped: ${unavailable}`);
    summary.add('first response, veth MTU 1500', 'median ≤ 3%', `skipped: ${unavailable}`, 'skipped');
    return;
  }
  const veth = await onVeth(mediaDir, undefined);
  const v = report(`veth, MTU 1500, tcp_tso_rtt_log ${veth.tsoRttLog} (kernel default)`, veth.samples);
  summary.add('first response, veth MTU 1500', 'median ≤ 3%', pct(v.medianAbsError).trim(), v.medianAbsError <= TARGET);
  const small = await onVeth(mediaDir, 0);
  const s = report(
    `veth, MTU 1500, tcp_tso_rtt_log ${small.tsoRttLog} in the server's namespace (TSO packets of ~1 ms at the pace)`,
    small.samples,
  );
  summary.add('first response, veth, tso_rtt_log 0', 'median ≤ 3%', pct(s.medianAbsError).trim(), s.medianAbsError <= TARGET);
  console.log(
    `  lead: ${kb(v.medianAhead)} with 64 KB TSO packets, ${kb(s.medianAhead)} with ~1 ms ones: what is left is the unpaced initial window (${kb(UNPACED_SEGMENTS * ETHERNET_MSS)}).`,
  );
}

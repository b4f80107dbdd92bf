/**
 * The scale benchmark's viewers, in a process of their own (scale.ts starts it): argv[2] is a ScaleLoad as
 * JSON. Each viewer fetches `segments` segments one after the other at its own rtp, over HTTP/1.1 (its own
 * kept-alive connection) or HTTP/2 (`viewersPerSession` viewers share a TLS session, one stream each at a time).
 * Starts are spread over `spreadMs`. Sends one ScaleLoadResult and exits.
 */
import { Agent } from 'node:http';
import { connect, type ClientHttp2Session } from 'node:http2';
import { MssAgent } from '../../varnish/test/edge-client.js';
import { cmcdQuery } from '../test/helpers.js';
import { sleep } from './stats.js';
import { timedGet } from './transfer.js';

export interface ScaleLoad {
  url: string;
  /** PEM to trust (HTTPS). */
  cert?: string;
  protocol: 'h1' | 'h2';
  viewers: number;
  /** Viewers on one HTTP/2 session (1 = a connection each). */
  viewersPerSession: number;
  segments: number;
  /** rtp of each viewer, kbps, assigned round-robin; its segment is `scale-<rtp>.m4s`. */
  rtpsKbps: number[];
  /** Send no CMCD (the same load unpaced). */
  unpaced: boolean;
  spreadMs: number;
  /**
   * Cap each HTTP/1.1 connection's MSS at Ethernet's from the client side, for an edge whose listening socket we do
   * not own (the origin caps its own): loopback's 64 KB segments would put a short segment in the unpaced first ten.
   */
  ethernetMss: boolean;
}

export interface ScaleResponse {
  rtpKbps: number;
  bytes: number;
  /** Request to last byte, ms. */
  ms: number;
  /** Its HTTP/2 session when the session is shared by several viewers (whose pace they share). */
  session?: number;
  /** When it was requested and when its last byte arrived, ms since the load started. */
  startMs: number;
  endMs: number;
}

export interface ScaleLoadResult {
  responses: ScaleResponse[];
  errors: string[];
  seconds: number;
}

const load = JSON.parse(process.argv[2] ?? 'null') as ScaleLoad | null;
if (!load || !process.send) throw new Error('usage: spawned by scale.ts with a ScaleLoad as JSON and an IPC channel');

const responses: ScaleResponse[] = [];
const started = performance.now();
const errors: string[] = [];
/** A segment of 4 s (segment-seconds) at `fileRtp`, asked for at `rtp`. */
const path = (fileRtp: number, rtp = fileRtp) => `/media/test/scale-${fileRtp}.m4s${load.unpaced ? '' : `?${cmcdQuery(rtp)}`}`;

async function h1Viewer(i: number): Promise<void> {
  const rtp = load!.rtpsKbps[i % load!.rtpsKbps.length]!;
  const agent = load!.ethernetMss ? new MssAgent() : new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let s = 0; s < load!.segments; s++) {
      try {
        const t = await timedGet(`${load!.url}${path(rtp)}`, { agent, timeoutMs: 60_000 });
        const endMs = performance.now() - started;
        if (t.status !== 200) errors.push(`status ${t.status}`);
        else responses.push({ rtpKbps: rtp, bytes: t.bytes, ms: t.seconds * 1000, startMs: endMs - t.seconds * 1000, endMs });
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
  } finally {
    agent.destroy();
  }
}

function h2Get(session: ClientHttp2Session, p: string): Promise<{ status: number; bytes: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const sentAt = performance.now();
    const stream = session.request({ ':path': p });
    let status = 0;
    let bytes = 0;
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (d: Buffer) => (bytes += d.length));
    stream.on('end', () => resolve({ status, bytes, ms: performance.now() - sentAt }));
    stream.on('error', reject);
    stream.setTimeout(60_000, () => stream.close(0x8));
    stream.end();
  });
}

/**
 * A session's viewers share its pace (the connection's, by the shared-connection rules): each asks for its own
 * rtp times the session's viewers, so that the session is paced for all of them, each getting about its rtp.
 */
async function h2Session(index: number, first: number, count: number): Promise<void> {
  const rtp = load!.rtpsKbps[index % load!.rtpsKbps.length]! * count;
  const session = connect(load!.url, { ca: load!.cert });
  session.on('error', (err) => errors.push(err.message));
  try {
    await Promise.all(
      Array.from({ length: count }, async () => {
        for (let s = 0; s < load!.segments; s++) {
          try {
            const r = await h2Get(session, path(rtp / count, rtp));
            const endMs = performance.now() - started;
            if (r.status !== 200) errors.push(`status ${r.status}`);
            else
              responses.push({
                rtpKbps: rtp,
                bytes: r.bytes,
                ms: r.ms,
                startMs: endMs - r.ms,
                endMs,
                ...(count > 1 ? { session: index } : {}),
              });
          } catch (err) {
            errors.push((err as Error).message);
          }
        }
      }),
    );
  } finally {
    session.close();
  }
}

if (load.protocol === 'h1') {
  await Promise.all(
    Array.from({ length: load.viewers }, async (_, i) => {
      await sleep((load.spreadMs * i) / load.viewers);
      await h1Viewer(i);
    }),
  );
} else {
  const sessions = Math.ceil(load.viewers / load.viewersPerSession);
  await Promise.all(
    Array.from({ length: sessions }, async (_, j) => {
      await sleep((load.spreadMs * j) / sessions);
      const first = j * load.viewersPerSession;
      await h2Session(j, first, Math.min(load.viewersPerSession, load.viewers - first));
    }),
  );
}
process.send({ responses, errors, seconds: (performance.now() - started) / 1000 } satisfies ScaleLoadResult, () => process.exit(0));

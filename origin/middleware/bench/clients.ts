/** Player-like load: paced segment downloads on kept-alive connections, and a manifest prober. */
import { Agent } from 'node:http';
import { cmcdQuery } from '../test/helpers.js';
import { sleep } from './stats.js';
import { timedGet } from './transfer.js';

export interface PacedLoadResult {
  /** achieved / rtp of every completed segment (request to last byte). */
  ratios: number[];
  errors: string[];
  seconds: number;
  /** Body bytes of every completed segment over the whole load's wall time, Mbps. */
  aggregateMbps: number;
}

/**
 * `clients` players at once, each fetching `segments` segments one after the other on its own kept-alive
 * connection at `kbps`; starts are spread over `spreadMs` so connection set-up is not one burst.
 */
export async function pacedLoad(
  baseUrl: string,
  opts: { clients: number; kbps: number; segments: number; file: string; bytes: number; spreadMs?: number; unpaced?: boolean },
): Promise<PacedLoadResult> {
  const ratios: number[] = [];
  const errors: string[] = [];
  const started = performance.now();
  const url = `${baseUrl}/media/test/${opts.file}${opts.unpaced ? '' : `?${cmcdQuery(opts.kbps)}`}`;
  await Promise.all(
    Array.from({ length: opts.clients }, async (_, i) => {
      await sleep(((opts.spreadMs ?? 0) * i) / opts.clients);
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let s = 0; s < opts.segments; s++) {
          try {
            const t = await timedGet(url, { agent, timeoutMs: 30_000 });
            if (t.status !== 200 || t.bytes !== opts.bytes) errors.push(`status ${t.status}, ${t.bytes} of ${opts.bytes} bytes`);
            else ratios.push(t.rateKbps / opts.kbps);
          } catch (err) {
            errors.push((err as Error).message);
          }
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { ratios, errors, seconds, aggregateMbps: (ratios.length * opts.bytes * 8) / seconds / 1e6 };
}

/** Fetches the manifest on a new connection every `everyMs` until `done` resolves; returns the latencies, ms. */
export async function probeManifest(
  baseUrl: string,
  path: string,
  done: Promise<unknown>,
  everyMs = 50,
): Promise<{ latenciesMs: number[]; errors: number }> {
  let finished = false;
  void done.finally(() => (finished = true));
  const latenciesMs: number[] = [];
  let errors = 0;
  // Bounded: at most one probe per `everyMs` for as long as the load runs, and never past 10 minutes.
  const deadline = performance.now() + 600_000;
  while (!finished && performance.now() < deadline) {
    const next = sleep(everyMs);
    try {
      const t = await timedGet(`${baseUrl}${path}`, { timeoutMs: 10_000 });
      if (t.status === 200) latenciesMs.push(t.seconds * 1000);
      else errors++;
    } catch {
      errors++;
    }
    await next;
  }
  return { latenciesMs, errors };
}

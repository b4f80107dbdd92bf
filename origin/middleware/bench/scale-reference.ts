/**
 * The scale benchmark's reference server (origin/server's `sammy-origin` CLI, as an operator runs it): one process,
 * or `--workers N` (node:cluster) to use every core. Measured from /proc over all its processes (the primary and
 * its workers), its event-loop delay read from its own /metrics (prom-client's, summed over the workers).
 */
import { readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { closeChild, spawnNodeChild } from './child-process.js';
import { childrenOf } from './scale-edges.js';

export interface RunningReference {
  url: string;
  port: number;
  /** The primary and, in a cluster, its workers. */
  pids(): number[];
  /** Its /metrics text. */
  metrics(): Promise<string>;
  close(): Promise<void>;
}

const CLI = new URL('../../server/src/cli.ts', import.meta.url);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A cluster's workers: the primary's children that run its own executable. Not every child is one: tsx's
 * esbuild service is a child too while a cold cache (a fresh clone) has files to transform.
 */
function workersOf(primary: number): number[] {
  const exe = (pid: number) => {
    try {
      return readlinkSync(`/proc/${pid}/exe`);
    } catch {
      return undefined; // gone meanwhile
    }
  };
  const own = exe(primary);
  return childrenOf(primary).filter((pid) => own !== undefined && exe(pid) === own);
}

export async function startReference(opts: { mediaDir: string; workers: number }): Promise<RunningReference> {
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--no-https',
    '--media-dir',
    opts.mediaDir,
    '--workers',
    String(opts.workers),
    // The viewers all come from 127.0.0.1: the per-address cap (64 by default, per worker) would refuse most.
    '--max-conns-per-client',
    '1000000',
  ];
  const child = spawnNodeChild(CLI, args, { nofile: 65_536 });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  // Up once /metrics answers (in a cluster: once every worker can be asked, the primary sums them).
  for (;;) {
    const status = await fetch(`${url}/metrics`).then(
      (r) => String(r.status),
      (err: Error) => err.message,
    );
    const workers = workersOf(child.pid!).length;
    if (status === '200' && (opts.workers === 1 || workers === opts.workers)) break;
    if (child.exitCode !== null || Date.now() > until) {
      throw new Error(
        `the reference server did not start (exit ${child.exitCode}, /metrics: ${status}, ${workers} of ${opts.workers} workers)`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    port,
    pids: () => [child.pid!, ...childrenOf(child.pid!)],
    metrics: () => fetch(`${url}/metrics`).then((r) => r.text()),
    close: async () => {
      // SIGTERM: the primary stops its workers and then itself (the CLI reads no IPC).
      child.kill('SIGTERM');
      await closeChild(child, 10_000);
    },
  };
}

/** A gauge's value in a /metrics text (NaN when absent). */
export function metricValue(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? NaN : Number(line.slice(name.length + 1));
}

/** The origin under benchmark as a child process (bench-server.ts), seen from the clients' side. */
import type { ChildProcess } from 'node:child_process';
import type { BenchServerConfig, BenchServerMessage, BenchServerStats } from './bench-server.js';
import { ask, closeChild, nextMessage, spawnNodeChild, type SpawnOptions } from './child-process.js';

export interface BenchServer {
  url: string;
  /** The certificate (PEM) to trust, when the server speaks HTTPS. */
  cert?: string;
  port: number;
  pid: number;
  cpuSeconds(): Promise<number>;
  /** Starts a new event-loop delay window; resolves with the CPU seconds so far. */
  resetLoopDelay(): Promise<number>;
  stats(): Promise<BenchServerStats>;
  close(): Promise<void>;
}

export async function startServer(config: BenchServerConfig, spawnOpts: SpawnOptions = {}): Promise<BenchServer> {
  const child: ChildProcess = spawnNodeChild(new URL('./bench-server.ts', import.meta.url), [JSON.stringify(config)], spawnOpts);
  const ready = await nextMessage<BenchServerMessage>(child, 60_000).catch(async (err: unknown) => {
    await closeChild(child, 1000);
    throw err;
  });
  if (!('url' in ready)) throw new Error('bench server did not start');
  return {
    url: ready.url,
    port: ready.port,
    cert: ready.cert,
    pid: child.pid ?? -1,
    async cpuSeconds() {
      const m = await ask<BenchServerMessage>(child, 'cpu');
      if (!('cpu' in m)) throw new Error('unexpected message from bench server');
      return (m.cpu.user + m.cpu.system) / 1e6;
    },
    async resetLoopDelay() {
      const m = await ask<BenchServerMessage>(child, 'reset-loop');
      if (!('cpu' in m)) throw new Error('unexpected message from bench server');
      return (m.cpu.user + m.cpu.system) / 1e6;
    },
    async stats() {
      const m = await ask<BenchServerMessage>(child, 'stats');
      if (!('stats' in m)) throw new Error('unexpected message from bench server');
      return m.stats;
    },
    close: () => closeChild(child),
  };
}

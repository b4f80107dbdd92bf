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
  /** The middleware's metrics as /metrics serves them (empty unless the config enables them). */
  metrics(): Promise<string>;
  close(): Promise<void>;
}

export async function startServer(config: BenchServerConfig, spawnOpts: SpawnOptions = {}): Promise<BenchServer> {
  const child: ChildProcess = spawnNodeChild(new URL('./bench-server.ts', import.meta.url), [JSON.stringify(config)], spawnOpts);
  const ready = await nextMessage<BenchServerMessage>(child, 60_000).catch(async (err: unknown) => {
    await closeChild(child, 1000);
    throw err;
  });
  if (!('url' in ready)) throw new Error('bench server did not start');
  // The child answers in order, each reply taken as the next message: one question at a time.
  let last: Promise<unknown> = Promise.resolve();
  const question = (msg: string): Promise<BenchServerMessage> => {
    const reply = last.then(() => ask<BenchServerMessage>(child, msg));
    last = reply.catch(() => undefined);
    return reply;
  };
  return {
    url: ready.url,
    port: ready.port,
    cert: ready.cert,
    pid: child.pid ?? -1,
    async cpuSeconds() {
      const m = await question('cpu');
      if (!('cpu' in m)) throw new Error('unexpected message from bench server');
      return (m.cpu.user + m.cpu.system) / 1e6;
    },
    async resetLoopDelay() {
      const m = await question('reset-loop');
      if (!('cpu' in m)) throw new Error('unexpected message from bench server');
      return (m.cpu.user + m.cpu.system) / 1e6;
    },
    async stats() {
      const m = await question('stats');
      if (!('stats' in m)) throw new Error('unexpected message from bench server');
      return m.stats;
    },
    async metrics() {
      const m = await question('metrics');
      if (!('metrics' in m)) throw new Error('unexpected message from bench server');
      return m.metrics;
    },
    close: () => closeChild(child),
  };
}

/**
 * The origin under benchmark, in its own process so its CPU time and memory are its own: `process.cpuUsage()`
 * here counts only the server (the clients run elsewhere). Started by server-process.ts with its config as JSON
 * in argv[2]; speaks over the IPC channel: sends `{ url }` once listening, answers `'cpu'` with its cpuUsage,
 * `'stats'` with its memory and connection counts, and exits on `'close'`.
 */
import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isPacingMode, type PacingMode } from '../src/engine/mechanism.js';
import { setMaxSegmentSize } from '../src/socket/socket-options.js';
import { startTestOrigin, type TestOriginOptions } from '../test/helpers.js';
import { startH2Origin } from '../test/http2-helpers.js';
import { openFileLimit } from './process-limits.js';

export interface BenchServerConfig {
  mediaDir: string;
  mode: PacingMode;
  /** Listen address. Default 127.0.0.1. */
  host?: string;
  /** Leave the link's own MSS (loopback: 64 KB) instead of the test origin's Ethernet-sized cap. */
  nativeMss?: boolean;
  /** Serve HTTPS with HTTP/2 (and HTTP/1.1 by ALPN) instead of plain HTTP/1.1. */
  http2?: boolean;
  /** Further middleware options (JSON-safe ones). */
  options?: Omit<TestOriginOptions, 'pacing' | 'host' | 'logger' | 'records'>;
}

export interface BenchServerStats {
  rssBytes: number;
  heapUsedBytes: number;
  /** Open connections on the server. */
  connections: number;
  /** The middleware's responses not yet recorded. */
  activeResponses: number;
  /** This process's soft limit on open files. */
  nofile: number;
  /** Open file descriptors of this process. */
  fds: number;
  /** Event-loop delay since the last `'reset-loop'` (perf_hooks.monitorEventLoopDelay), ms. */
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
}

export type BenchServerMessage =
  { url: string; port: number; cert?: string } | { cpu: NodeJS.CpuUsage } | { stats: BenchServerStats } | { metrics: string };

const config = JSON.parse(process.argv[2] ?? 'null') as BenchServerConfig | null;
if (!config || !config.mediaDir || !isPacingMode(config.mode) || !process.send) {
  throw new Error('usage: spawned by server-process.ts with a BenchServerConfig as JSON and an IPC channel');
}
const send = process.send.bind(process);
const origin: {
  url: string;
  port: number;
  server: import('node:net').Server;
  pacing: import('../src/middleware.js').SammyPacingHandler;
  cert?: string;
  close(): Promise<void>;
} = config.http2
  ? await startH2Origin(config.mediaDir, { ...config.options, pacing: config.mode })
  : await startTestOrigin(config.mediaDir, { ...config.options, pacing: config.mode, host: config.host });
if (config.nativeMss) {
  const fd = (origin.server as unknown as { _handle?: { fd?: number } })._handle?.fd;
  // 0 clears the listening socket's TCP_MAXSEG: accepted connections use the link's own MSS.
  if (fd !== undefined) setMaxSegmentSize(fd, 0);
}
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
process.on('message', (msg) => {
  if (msg === 'reset-loop') {
    loopDelay.reset();
    send({ cpu: process.cpuUsage() } satisfies BenchServerMessage);
  } else if (msg === 'cpu') send({ cpu: process.cpuUsage() } satisfies BenchServerMessage);
  else if (msg === 'stats') {
    origin.server.getConnections((_err, connections) => {
      const mem = process.memoryUsage();
      const stats: BenchServerStats = {
        rssBytes: mem.rss,
        heapUsedBytes: mem.heapUsed,
        connections,
        activeResponses: origin.pacing.activeResponses,
        nofile: openFileLimit(),
        fds: readdirSync('/proc/self/fd').length,
        // A histogram with no samples yet reports NaN percentiles.
        eventLoopDelayP99Ms: loopDelay.count > 0 ? loopDelay.percentile(99) / 1e6 : 0,
        eventLoopDelayMaxMs: loopDelay.count > 0 ? loopDelay.max / 1e6 : 0,
      };
      send({ stats } satisfies BenchServerMessage);
    });
  } else if (msg === 'metrics') {
    // The exposition text /metrics would serve (options.metrics enables them), empty without metrics.
    void (origin.pacing.metrics?.registry.metrics() ?? Promise.resolve('')).then((metrics) =>
      send({ metrics } satisfies BenchServerMessage),
    );
  } else if (msg === 'close') void origin.close().finally(() => process.exit(0));
});
send({ url: origin.url, port: origin.port, cert: origin.cert } satisfies BenchServerMessage);

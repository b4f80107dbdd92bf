/**
 * The scale benchmark's edges: nginx (the `limit_rate` recipe) and Varnish (sammy.vcl, vmod_tcp) in front of an
 * unpaced origin, their processes measured from /proc (CPU, RSS, fds) as the origin measures itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { startNginx } from '../../nginx/src/nginx.js';
import { startVarnish } from '../../varnish/src/varnishd.js';

export type EdgeName = 'nginx' | 'varnish' | 'varnish-tuned';

/**
 * Varnish's thread pools as an operator sizes them for long paced deliveries, each of which holds a worker thread
 * for its whole transfer: (defaults in brackets) threads ready in each of the 2 pools 1000 [100], and 2000 requests
 * may wait for one [20]; beyond the queue Varnish answers 503 or drops the connection.
 */
export const VARNISH_TUNED_ARGS = ['-p', 'thread_pool_min=1000', '-p', 'thread_pool_max=5000', '-p', 'thread_queue_limit=2000'];

export interface RunningEdge {
  url: string;
  /** The processes that serve requests: nginx's workers, Varnish's cache process. */
  pids(): number[];
  close(): Promise<void>;
}

/** Kernel clock ticks per second (USER_HZ), what /proc/<pid>/stat counts CPU time in. */
const TICKS_PER_SECOND = 100;

function stat(pid: number): string[] {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which may hold spaces and parentheses: field 3 (state) is rest[0].
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** Children of `parent`, from /proc. */
export function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return Number(stat(pid)[1]) === parent;
      } catch {
        return false; // gone meanwhile
      }
    });
}

export async function startEdge(name: EdgeName, backendPort: number): Promise<RunningEdge> {
  if (name === 'nginx') {
    const nginx = await startNginx({ backendPort });
    return { url: nginx.url, pids: () => childrenOf(nginx.pid), close: () => nginx.close() };
  }
  const varnish = await startVarnish({ backendPort, args: name === 'varnish-tuned' ? VARNISH_TUNED_ARGS : [] });
  return { url: varnish.url, pids: () => [varnish.childPid()], close: () => varnish.close() };
}

/** CPU seconds (user + system) the processes have used. */
export function processCpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => {
    const f = stat(pid);
    return sum + (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND;
  }, 0);
}

/** Resident memory and open fds of the processes. */
export function processMemory(pids: readonly number[]): { rssBytes: number; fds: number } {
  let rssBytes = 0;
  let fds = 0;
  for (const pid of pids) {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    rssBytes += Number(kb ?? 0) * 1024;
    fds += readdirSync(`/proc/${pid}/fd`).length;
  }
  return { rssBytes, fds };
}

/**
 * Starting the benchmark's helper processes (origin, remote clients): Node + tsx with an IPC channel, optionally
 * inside a network namespace (`ip netns exec`) and with a raised open-file limit (a shell `ulimit -n` before
 * `exec`: Node cannot raise its own). The IPC descriptor survives both execs.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface SpawnOptions {
  /** Run inside this network namespace (root only). */
  netns?: string;
  /** Raise the soft open-file limit to this (or to the hard limit if lower). */
  nofile?: number;
}

const live = new Set<ChildProcess>();

/** Kills every helper still running (on the way out, also after a failure). */
export function killAllChildren(): void {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export function spawnNodeChild(script: URL, args: readonly string[], opts: SpawnOptions = {}): ChildProcess {
  // SAMMY_BENCH_CPU_PROF=<dir>: a V8 CPU profile of every child, written to <dir> when it exits.
  const profile = process.env.SAMMY_BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.SAMMY_BENCH_CPU_PROF] : [];
  let argv = [process.execPath, ...profile, '--import', 'tsx', script.pathname, ...args];
  if (opts.nofile !== undefined) {
    argv = ['sh', '-c', 'ulimit -n "$1" 2>/dev/null || ulimit -n "$(ulimit -Hn)"; shift; exec "$@"', 'sh', String(opts.nofile), ...argv];
  }
  if (opts.netns !== undefined) argv = ['ip', 'netns', 'exec', opts.netns, ...argv];
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** The child's next IPC message; rejects if it exits first or says nothing within `timeoutMs`. */
export function nextMessage<T>(child: ChildProcess, timeoutMs = 120_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.off('message', onMessage);
    };
    const onExit = (code: number | null, signal: string | null) => {
      done();
      reject(new Error(`benchmark child exited (${signal ?? code}) before answering`));
    };
    const onMessage = (m: unknown) => {
      done();
      resolve(m as T);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`benchmark child did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', onExit);
    child.once('message', onMessage);
  });
}

/** Sends `msg` and waits for the reply. */
export async function ask<T>(child: ChildProcess, msg: unknown, timeoutMs?: number): Promise<T> {
  const reply = nextMessage<T>(child, timeoutMs);
  child.send(msg as string);
  return reply;
}

/** Asks the child to close and waits for it to exit (killed after `graceMs`). */
export function closeChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    // A child that has just exited on its own may still look connected: a failed send (EPIPE) is not an error here.
    if (child.connected) child.send('close', (err) => err && child.kill('SIGTERM'));
    else child.kill('SIGTERM');
  });
}

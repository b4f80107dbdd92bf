/**
 * Commands and long-lived children, in the root namespace or inside one of the bench's namespaces.
 * Every child is registered so that a failure or Ctrl-C stops exactly the processes the bench started.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Runs a command to completion; throws with its stderr on failure. */
export async function run(cmd: string, args: string[], timeoutMs = 15_000): Promise<string> {
  try {
    const { stdout } = await execFileAsync(cmd, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${(e.stderr ?? '').trim() || e.message}`);
  }
}

/** Synchronous variant for signal handlers and cleanup, where the event loop may not run again. */
export function runSync(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
}

export function inNs(ns: string, cmd: string, args: string[]): [string, string[]] {
  return ['ip', ['netns', 'exec', ns, cmd, ...args]];
}

const children = new Set<ChildProcess>();

export interface Child {
  proc: ChildProcess;
  /** Resolves with the exit code (or null on a signal). */
  exited: Promise<number | null>;
  /** stdout so far (bounded). */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once exited. */
  stop(graceMs?: number): Promise<void>;
  /** Writes to its stdin (only when started with `stdin: true`). */
  write(text: string): void;
}

const OUTPUT_LIMIT = 8 * 1024 * 1024;

/** Starts a long-lived child in its own process group so it can be stopped with everything it spawned. */
export function start(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; onLine?: (line: string) => void; stdin?: boolean } = {},
): Child {
  const proc = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'], detached: true });
  children.add(proc);
  let out = '';
  let err = '';
  let partial = '';
  proc.stdout?.setEncoding('utf8').on('data', (d: string) => {
    if (out.length < OUTPUT_LIMIT) out += d;
    if (opts.onLine) {
      partial += d;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) opts.onLine(l);
    }
  });
  proc.stderr?.setEncoding('utf8').on('data', (d: string) => {
    if (err.length < OUTPUT_LIMIT) err += d;
  });
  const exited = new Promise<number | null>((resolve) => {
    proc.on('exit', (code) => {
      children.delete(proc);
      resolve(code);
    });
    proc.on('error', () => {
      children.delete(proc);
      resolve(null);
    });
  });
  const stop = async (graceMs = 3000): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    killGroup(proc, 'SIGTERM');
    const timer = setTimeout(() => killGroup(proc, 'SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const write = (text: string): void => {
    if (!proc.stdin) throw new Error(`${cmd}: started without stdin`);
    proc.stdin.write(text);
  };
  return { proc, exited, stdout: () => out, stderr: () => err, stop, write };
}

function killGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(-proc.pid, signal);
  } catch {
    try {
      proc.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/** Kills every child still running (synchronously usable from signal handlers). */
export function killAllChildren(): void {
  for (const c of children) killGroup(c, 'SIGKILL');
  children.clear();
}

/** Waits until `line` satisfies `test` on a child's stdout, or fails after `timeoutMs`. */
export function waitForLine(child: Child, test: (line: string) => boolean, timeoutMs: number, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const line = child.stdout().split('\n').find(test);
      if (line !== undefined) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(line);
        return true;
      }
      return false;
    };
    const poll = setInterval(check, 50);
    const timer = setTimeout(() => {
      clearInterval(poll);
      reject(new Error(`${what} not ready after ${timeoutMs} ms; stderr: ${child.stderr().slice(-2000)}`));
    }, timeoutMs);
    void child.exited.then((code) => {
      if (!check()) {
        clearInterval(poll);
        clearTimeout(timer);
        reject(new Error(`${what} exited (${code}) before ready; stderr: ${child.stderr().slice(-2000)}`));
      }
    });
  });
}

/** Last line of a child's output (`child.stdout()`, or what `run` returned), without the trailing newline. */
export function lastLine(output: string): string {
  return output.trim().split('\n').at(-1) ?? '';
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `cleanup` once, on whichever comes first: SIGINT or SIGTERM (told with `say`, then the process
 * exits 130 or 143), or the returned function, which also stops listening for the signals. Namespaces
 * and children must go on every exit path.
 */
export function cleanupOnExit(cleanup: () => void, say: (line: string) => void): () => void {
  let ran = false;
  const once = (): void => {
    if (ran) return;
    ran = true;
    cleanup();
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    say(`\n${signal}: stopping, removing namespaces`);
    once();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    once();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/** The reference server on a free loopback port, with the middleware tests' clients. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from 'sammy-pacing-express';
import { startOrigin, type RunningOrigin, type StartOriginOptions } from '../src/server.js';

export { cmcdQuery, get, waitFor } from '../../middleware/test/helpers.js';

export async function startTestOrigin(mediaDir: string, opts: StartOriginOptions = {}): Promise<RunningOrigin> {
  return startOrigin({ port: 0, mediaDir, siteDir: join(mediaDir, 'no-site'), logger: silentLogger, ...opts });
}

/** `sammy-origin` (the built CLI) as a child process, its stdout and stderr kept apart. */
export interface CliRun {
  stdout: () => string;
  stderr: () => string;
  pid: number;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  stop: () => Promise<number | null>;
}

export function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    pid: child.pid ?? -1,
    exited,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

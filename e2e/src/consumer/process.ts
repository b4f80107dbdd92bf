/** Child processes for the consumer tests: bounded in time, their output kept for the error message. */
import { execFile } from 'node:child_process';

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** Runs a command without a shell; rejects with its output if it fails or outlives `timeoutMs`. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        timeout: options.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 64 * 1024 * 1024,
        env: { ...(options.env ?? process.env), NO_COLOR: '1', FORCE_COLOR: '0' },
      },
      (error, stdout, stderr) => {
        if (error) {
          const why = error.killed ? `killed after ${options.timeoutMs} ms` : `exit code ${String(error.code)}`;
          reject(new Error(`\`${command} ${args.join(' ')}\` in ${options.cwd} failed (${why}):\n${tail(stdout)}\n${tail(stderr)}`));
        } else {
          resolve({ stdout, stderr });
        }
      },
    );
  });
}

function tail(text: string, max = 6000): string {
  return text.length > max ? `…${text.slice(-max)}` : text;
}

export { freePort } from '@sammy/test-support';

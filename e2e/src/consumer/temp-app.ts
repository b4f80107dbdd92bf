/**
 * A fresh project outside the repository (so nothing resolves through the workspace), installed from
 * the registry and the packed tarballs only, as a user's app would be.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { run, type RunResult } from './process.js';

export interface TempApp {
  dir: string;
  /** Runs a binary the app installed (node_modules/.bin). */
  bin(name: string, args: readonly string[], timeoutMs?: number): Promise<RunResult>;
  remove(): Promise<void>;
}

export async function createTempApp(prefix: string, files: Record<string, string | Uint8Array>): Promise<TempApp> {
  const dir = await mkdtemp(join(tmpdir(), `sammy-consumer-${prefix}-`));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return {
    dir,
    bin: (name, args, timeoutMs = 120_000) => run(join(dir, 'node_modules', '.bin', name), args, { cwd: dir, timeoutMs }),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * One `npm install` of the given arguments plus the app's package.json; returns npm's output. The registry's packages come
 * from npm's cache when it has them (`--prefer-offline`); a missing one is fetched.
 */
export async function npmInstall(app: TempApp, args: readonly string[], options: { warnings?: boolean } = {}): Promise<RunResult> {
  // `warnings`: keep npm's warnings in the result, for a test of what a README says npm prints.
  const loglevel = options.warnings ? 'warn' : 'error';
  return run('npm', ['install', ...args, '--prefer-offline', '--no-audit', '--no-fund', `--loglevel=${loglevel}`], {
    cwd: app.dir,
    timeoutMs: 240_000,
  });
}

/** The app's copy of a package is a real folder (from a tarball), not a link into the workspace. */
export function isInstalledCopy(app: TempApp, name: string): boolean {
  try {
    const stat = lstatSync(join(app.dir, 'node_modules', name));
    return stat.isDirectory() && !stat.isSymbolicLink();
  } catch {
    return false;
  }
}

/** The version of the app's installed copy of a package. */
export function installedVersion(app: TempApp, name: string): string {
  return (JSON.parse(readFileSync(join(app.dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

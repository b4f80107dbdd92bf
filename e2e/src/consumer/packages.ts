/**
 * The publishable packages (every workspace not marked private), packed the way the README tells a
 * user to (`npm run pack:packages` → `.cache/packages/*.tgz`), and what their tarballs hold.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { minVersion } from 'semver';
import { REPO_ROOT } from '../repo-root.js';
import { run } from './process.js';

/** Where `npm run pack:packages` leaves the tarballs (the README's install instructions use it). */
export const PACKAGES_DIR = join(REPO_ROOT, '.cache', 'packages');

export interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  main?: string;
  types?: string;
  files?: string[];
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

export interface Publishable {
  /** Workspace folder, relative to the repository root. */
  dir: string;
  manifest: PackageJson;
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Every workspace of the root package.json. */
export function workspacePackages(): Publishable[] {
  const root = readJson<{ workspaces: string[] }>(join(REPO_ROOT, 'package.json'));
  return root.workspaces.map((dir) => ({ dir, manifest: readJson<PackageJson>(join(REPO_ROOT, dir, 'package.json')) }));
}

/** Every workspace that is not private: what gets published. */
export function publishablePackages(): Publishable[] {
  return workspacePackages().filter((p) => p.manifest.private !== true);
}

export function tarballName(manifest: PackageJson): string {
  return `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`;
}

/** Every import specifier a package's `exports` offers (`name`, `name/sub`), package.json aside. */
export function entryPoints(manifest: PackageJson): string[] {
  return Object.keys(manifest.exports ?? { '.': null })
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => (subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`));
}

let packed: Promise<Map<string, string>> | undefined;

/**
 * Runs `npm run pack:packages` once per test process (each package's `prepack` cleans and rebuilds
 * its dist) and returns package name → tarball path. Fails if the folder holds anything but exactly
 * one tarball per publishable package.
 */
export function packPackages(): Promise<Map<string, string>> {
  packed ??= (async () => {
    await run('npm', ['run', 'pack:packages'], { cwd: REPO_ROOT, timeoutMs: 180_000 });
    const expected = new Map(publishablePackages().map((p) => [tarballName(p.manifest), p.manifest.name]));
    const found = readdirSync(PACKAGES_DIR).sort();
    const missing = [...expected.keys()].filter((f) => !found.includes(f));
    const extra = found.filter((f) => !expected.has(f));
    if (missing.length > 0 || extra.length > 0) {
      throw new Error(
        `npm run pack:packages made ${found.join(', ') || 'nothing'} in ${PACKAGES_DIR}; missing: ${missing.join(', ') || '-'}; unexpected: ${extra.join(', ') || '-'}`,
      );
    }
    return new Map([...expected].map(([file, name]) => [name, join(PACKAGES_DIR, file)]));
  })();
  return packed;
}

/** Paths inside a tarball, without npm's `package/` prefix, sorted. */
export async function tarballEntries(tarball: string): Promise<string[]> {
  const { stdout } = await run('tar', ['-tzf', tarball], { cwd: REPO_ROOT, timeoutMs: 30_000 });
  return stdout
    .split('\n')
    .filter((line) => line.length > 0 && !line.endsWith('/'))
    .map((line) => line.replace(/^package\//, ''))
    .sort();
}

/**
 * The arguments of the README's `npm install` command that installs tarballs from a clone, with the
 * clone's `.cache/packages/` folder replaced by this repository's. Every tarball it names must exist;
 * every other argument must be a registry package name.
 */
export function installArgsFromReadme(commands: readonly string[]): string[] {
  const install = commands.filter((c) => /^npm (install|i) /.test(c) && c.includes('.cache/packages/'));
  if (install.length !== 1)
    throw new Error(`expected one \`npm install … .cache/packages/….tgz\` command, found ${install.length}: ${commands.join(' | ')}`);
  return install[0]!
    .split(/\s+/)
    .slice(2)
    .map((arg) => {
      const tarball = /(?:^|\/)\.cache\/packages\/([^/]+\.tgz)$/.exec(arg);
      if (tarball) {
        const file = join(PACKAGES_DIR, tarball[1]!);
        if (!existsSync(file)) throw new Error(`the README installs ${arg}, but npm run pack:packages made no ${tarball[1]}`);
        return file;
      }
      if (!/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*(@[^\s/]+)?$/.test(arg))
        throw new Error(`unexpected argument in the README's install command: ${arg}`);
      return arg;
    });
}

/** The lowest version of `dependency` that a package's peer range accepts (`^5.0.0` → 5.0.0). */
export function peerFloor(manifest: PackageJson, dependency: string): string {
  const range = manifest.peerDependencies?.[dependency];
  if (!range) throw new Error(`${manifest.name} has no peer dependency on ${dependency}`);
  const floor = minVersion(range);
  if (!floor) throw new Error(`${manifest.name}'s peer range for ${dependency} (${range}) has no lowest version`);
  return floor.version;
}

/** A README's install arguments with the one bare `name` among them pinned to `version`. */
export function pinInstallArg(args: readonly string[], name: string, version: string): string[] {
  if (args.filter((arg) => arg === name).length !== 1)
    throw new Error(`the README's install command must name ${name} once, bare: ${args.join(' ')}`);
  return args.map((arg) => (arg === name ? `${name}@${version}` : arg));
}

/**
 * Runs this package's test suite on each Node release line servers run, not only on the Node
 * that runs npm. The middleware leans on what changes between releases: HTTP/2 session
 * internals (when a session stops reading, what a reset leaves in flight), socket handles for
 * the kernel pace, koffi's native binding. Node 26 once changed how much of a reset stream a
 * test saw in flight; only running there showed it.
 *
 * Node's own binaries come from the npm registry (`node-<platform>-<arch>`, published by the
 * Node.js project with npm's integrity check), so no other download path is needed.
 *
 *   tsx scripts/test-on-node-lts.ts            # the lines below
 *   SAMMY_NODE_LINES=24,26 tsx scripts/...      # others (majors, or exact versions)
 *   SAMMY_NODE_TESTS=all tsx scripts/...        # every test file, not only the release-sensitive ones
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rsort } from 'semver';

/**
 * Maintenance and active LTS lines at the end of 2026 (the Node that runs npm, 20 in CI,
 * runs the suite already). Each resolves to its newest release on the registry.
 */
const NODE_LINES = ['22', '24', '26'];

/**
 * What changes between releases, and only that (the whole suite takes 2.5 minutes a line; this 40 s):
 * HTTP/2 session internals under resets, GOAWAYs and zero windows, aborts mid-body on both HTTP
 * versions, and the socket handle and koffi binding behind the kernel pace and TCP_INFO.
 * `SAMMY_NODE_TESTS=all` runs every file.
 */
const NODE_SENSITIVE_TESTS = [
  'test/hostile-h2.test.ts',
  'test/slow-reader.test.ts',
  'test/http2-fuzz.test.ts',
  'test/abort-fuzz.test.ts',
  'test/tcp-info.test.ts',
];

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const lines = (process.env.SAMMY_NODE_LINES ?? NODE_LINES.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const binaryPackage = `node-${process.platform}-${process.arch}`;
const require = createRequire(join(packageDir, 'package.json'));
const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
const cache = resolve(packageDir, '../../node_modules/.cache/node-lts');

/** Runs npm; a failure says what it was fetching and why it may have failed. */
function npm(args: string[], what: string): string {
  try {
    return execFileSync('npm', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? String(err);
    throw new Error(
      `could not fetch ${what} from the npm registry (is this platform published, is the registry reachable?):\n${stderr.trim()}`,
    );
  }
}

/**
 * The newest release of `line`, unpacked in the cache; the path of its `node`. The tarball (50 MB)
 * is fetched only when that release is not unpacked yet.
 */
function nodeBinary(line: string): { version: string; node: string } {
  const spec = `${binaryPackage}@${line}`;
  // One version is printed as a string, several as an array in publish order: the newest by semver.
  const listed = JSON.parse(npm(['view', spec, 'version', '--json'], `Node ${line} as ${spec}`)) as string | string[];
  const version = rsort(([] as string[]).concat(listed))[0];
  if (version === undefined) throw new Error(`no release of ${spec} on the npm registry`);
  const dir = join(cache, version);
  const node = join(dir, 'package', 'bin', 'node');
  if (!existsSync(node)) {
    mkdirSync(cache, { recursive: true });
    const [{ filename }] = JSON.parse(
      npm(['pack', `${binaryPackage}@${version}`, '--json', '--pack-destination', cache], `Node ${version}`),
    ) as [{ filename: string }];
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    // Only the binary: the rest (headers, npm, docs) is three times its size.
    execFileSync('tar', ['-xzf', join(cache, filename), '-C', dir, 'package/bin/node']);
    rmSync(join(cache, filename), { force: true });
  }
  const ran = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  if (ran !== `v${version}`) throw new Error(`${node} says it is ${ran}, not v${version}`);
  return { version, node };
}

const results: { line: string; version: string; ok: boolean }[] = [];
for (const line of lines) {
  let binary: { version: string; node: string };
  try {
    binary = nodeBinary(line);
  } catch (err) {
    console.error(`test-on-node-lts: ${(err as Error).message}`);
    process.exit(1);
  }
  const { version, node } = binary;
  console.log(`\n== sammy-pacing-express tests on Node ${version} (${node})`);
  const files = process.env.SAMMY_NODE_TESTS === 'all' ? [] : NODE_SENSITIVE_TESTS;
  const run = spawnSync(node, [vitest, 'run', ...files], { cwd: packageDir, stdio: 'inherit' });
  results.push({ line, version, ok: run.status === 0 });
}
console.log('\n' + results.map((r) => `Node ${r.version}: ${r.ok ? 'passed' : 'FAILED'}`).join('\n'));
process.exit(results.every((r) => r.ok) ? 0 : 1);

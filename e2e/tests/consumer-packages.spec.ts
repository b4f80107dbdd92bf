/**
 * What would be published: `npm run pack:packages` makes one tarball per non-private workspace, each
 * holding only dist/, README.md, LICENSE and package.json, with every `exports` target present and
 * types first, depending on its siblings at exactly their version and on nothing private; and
 * `npm publish --dry-run` accepts each one with the same file list.
 */
import { expect, test } from '@playwright/test';
import { REPO_ROOT } from '../src/repo-root.js';
import { packPackages, publishablePackages, tarballEntries, workspacePackages } from '../src/consumer/packages.js';
import { run } from '../src/consumer/process.js';

/** Every file path an `exports` value points at, checking that each condition object lists `types` first. */
function exportTargets(value: unknown, where: string, problems: string[]): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  const conditions = Object.keys(value);
  if (conditions.includes('types') && conditions[0] !== 'types')
    problems.push(`${where}: "types" must be the first condition (is ${conditions.join(', ')})`);
  const isConditionObject = conditions.every((c) => !c.startsWith('.'));
  if (isConditionObject && !conditions.includes('types')) problems.push(`${where}: no "types" condition`);
  return Object.entries(value).flatMap(([key, v]) => exportTargets(v, `${where}.${key}`, problems));
}

test('pack:packages makes one tarball per publishable package, holding only dist/, README.md, LICENSE and package.json', async () => {
  test.setTimeout(240_000);
  const tarballs = await packPackages();
  const packages = publishablePackages();
  const versions = new Map(packages.map((p) => [p.manifest.name, p.manifest.version]));
  const privateNames = new Set(
    workspacePackages()
      .filter((p) => p.manifest.private === true)
      .map((p) => p.manifest.name),
  );
  expect(packages.map((p) => p.manifest.name).sort()).toEqual([...tarballs.keys()].sort());
  for (const { manifest } of packages) {
    const entries = await tarballEntries(tarballs.get(manifest.name)!);
    const name = manifest.name;
    expect(
      entries.filter((e) => !/^(dist\/.+|README\.md|LICENSE|package\.json)$/.test(e)),
      `${name}: files outside dist/, README.md, LICENSE, package.json`,
    ).toEqual([]);
    expect(entries, `${name}: README.md`).toContain('README.md');
    expect(entries, `${name}: LICENSE`).toContain('LICENSE');
    expect(
      entries.filter((e) => /(^|\/)(src|test|tests|bench)\//.test(e) || e.endsWith('.d.ts.map')),
      `${name}: sources, tests, benches or declaration maps`,
    ).toEqual([]);

    const problems: string[] = [];
    const targets = [manifest.main, manifest.types, ...exportTargets(manifest.exports, 'exports', problems)].filter(
      (t): t is string => typeof t === 'string',
    );
    for (const target of targets) {
      if (!entries.includes(target.replace(/^\.\//, ''))) problems.push(`points at ${target}, which the tarball lacks`);
    }
    for (const [dep, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      if (versions.has(dep) && range !== versions.get(dep))
        problems.push(`depends on ${dep}@${range}, not its sibling's exact version ${versions.get(dep)}`);
      if (privateNames.has(dep) || dep.startsWith('@sammy/')) problems.push(`depends on the unpublished ${dep}`);
      if (dep.includes('ffmpeg')) problems.push(`depends on ${dep}`);
    }
    if (!manifest.scripts?.prepack) problems.push('no prepack script (a fresh clone would pack no dist)');
    expect(problems, `${name} package.json`).toEqual([]);
  }
});

test("npm publish --dry-run accepts every publishable package, with the tarball's file list", async () => {
  test.setTimeout(120_000);
  const tarballs = await packPackages();
  for (const { manifest } of publishablePackages()) {
    // No token needed: npm only warns in a dry run. It asks the registry which versions exist (refusing a
    // republished one); without the registry it goes on, so fail fast rather than retry for a minute.
    // prepack is skipped: pack:packages above has just run it.
    const { stdout } = await run(
      'npm',
      ['publish', '--dry-run', '--json', '--ignore-scripts', '--fetch-retries=0', '--fetch-timeout=15000', '-w', manifest.name],
      {
        cwd: REPO_ROOT,
        timeoutMs: 60_000,
      },
    );
    const report = (JSON.parse(stdout) as Record<string, { name: string; version: string; files: Array<{ path: string }> }>)[manifest.name];
    expect(report, `npm publish --dry-run -w ${manifest.name}: ${stdout.slice(0, 500)}`).toBeDefined();
    expect(report!.name).toBe(manifest.name);
    expect(report!.version).toBe(manifest.version);
    expect(report!.files.map((f) => f.path).sort()).toEqual(await tarballEntries(tarballs.get(manifest.name)!));
  }
});

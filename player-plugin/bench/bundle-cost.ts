/**
 * What an adapter adds to a real app, the same way for every adapter: one Vite app (the player
 * playing the test content) built without and with Sammy (the adapter README's snippet), and with
 * pace-only mode, by Vite with its default settings (no config file: the build a fresh
 * `npm create vite` app makes), JS gzipped. The app gets the adapter, sammy-pacing-core and
 * sammy-pacing-protocol from their packed tarballs (`npm pack` of the built dist, so run `npm run
 * build` first; `pack:packages` rebuilds the same dist before packing), unpacked into its
 * node_modules: only what a user installs, through its `exports` and `sideEffects`. The player and
 * @svta come from the repository's lockfile, the versions a fresh install resolves today. Then the
 * same app with one dependency left out of the bundle (external) at a time: what is left of the
 * difference is that dependency's share; and the bundled modules of each by size before minification.
 *
 * Sizes print in bytes and in KB of 1024 bytes; Vite's own build output prints kB of 1000 bytes, so
 * the same 8187 B read there as 8.19 kB. The budget must hold in both readings, so it is the
 * stricter one: 8 kB and 9 kB as Vite prints them, 8000 and 9000 B.
 *
 * Each adapter's bench/bundle-cost.ts describes its app (`BundleApp`) and calls `reportBundleCost`;
 * with `--budget` (its `test:size` script, part of its `npm test`) it builds only the three apps,
 * prints what Sammy adds and exits non-zero above the budget.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build, type Rollup } from 'vite';

const exec = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * Where an adapter's tarballs are unpacked and its apps built: under the root node_modules, so the
 * player and @svta resolve from the lockfile, and outside the adapter's folder, whose package.json
 * would otherwise resolve its own name (a self-reference) to the workspace's dist.
 */
const workDirOf = (app: BundleApp) => join(REPO_ROOT, 'node_modules', '.cache', `sammy-bundle-cost-${app.folder}`);
/** The packages an adapter app installs from tarballs besides the adapter itself. */
const SAMMY_DEPENDENCIES = ['sammy-pacing-core', 'sammy-pacing-protocol'];

/** The budget for what an adapter adds in its default mode, gzip bytes (issue 32; 8 kB as Vite prints it). */
export const BUDGET_GZIP_BYTES = 8000;
/** The budget for what an adapter adds in pace-only mode, gzip bytes (issue 32; 9 kB as Vite prints it). */
export const PACE_ONLY_BUDGET_GZIP_BYTES = 9000;
/** Gzip level of a typical static server / CDN. */
const GZIP_LEVEL = 6;

export interface BundleApp {
  /** The player, for the printout: 'dash.js'. */
  player: string;
  /** The adapter package: 'sammy-pacing-dashjs'; its workspace is player-plugin/<folder>. */
  adapter: string;
  folder: string;
  /** src/main.ts of the app without Sammy, with Sammy (the README snippet), and in pace-only mode. */
  apps: { alone: string; sammy: string; paceOnly: string };
}

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>app</title></head>
<body><video muted playsinline></video><script type="module" src="/src/main.ts"></script></body></html>
`;

/** The README snippets' decision log, the same in every app with Sammy. */
export const LOG_DECISIONS = `sammy.on('decision', (d) => console.log(\`\${d.phase}: \${d.bitrateKbps} kbps, pace \${d.paceRateKbps ?? 'none'} kbps\`));\n`;

/** The first lines of every app: the page's video element. */
export const VIDEO_ELEMENT = `const video = document.querySelector('video');\nif (!video) throw new Error('the page needs a <video> element');\n`;

interface Built {
  gzip: number;
  minified: number;
  chunks: Rollup.OutputChunk[];
}

/**
 * Packs the adapter and the Sammy packages it depends on from their built dist (`npm pack`, its
 * `files` and manifest as published) and unpacks each into workDir/node_modules, as `npm install`
 * of the tarballs would.
 */
async function installTarballs(app: BundleApp): Promise<string> {
  const workDir = workDirOf(app);
  const names = [app.adapter, ...SAMMY_DEPENDENCIES];
  for (const dir of [`player-plugin/${app.folder}`, 'player-plugin/core', 'protocol']) {
    if (!existsSync(join(REPO_ROOT, dir, 'dist'))) throw new Error(`${dir}/dist is missing: run \`npm run build\` first`);
  }
  await rm(workDir, { recursive: true, force: true });
  const tarballs = join(workDir, 'tarballs');
  await mkdir(tarballs, { recursive: true });
  // --ignore-scripts: prepack would clean and rebuild the dist, the same build `npm run build` made.
  const { stdout } = await exec(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', tarballs, ...names.flatMap((n) => ['-w', n])],
    { cwd: REPO_ROOT },
  );
  const packed = JSON.parse(stdout) as Array<{ name: string; filename: string }>;
  for (const name of names) {
    const tarball = packed.find((p) => p.name === name);
    if (!tarball) throw new Error(`npm pack made no tarball of ${name}`);
    const into = join(workDir, 'node_modules', name);
    await mkdir(into, { recursive: true });
    await exec('tar', ['-xzf', join(tarballs, tarball.filename), '-C', into, '--strip-components=1']);
  }
  return workDir;
}

/** Fails unless the app's Sammy code came from the unpacked tarballs, none from the workspace. */
function assertFromTarballs(app: BundleApp, workDir: string, built: Built): void {
  const ids = built.chunks.flatMap((c) => Object.keys(c.modules));
  const unpacked = join(workDir, 'node_modules') + '/';
  const fromWorkspace = ids.filter((id) => id.startsWith(REPO_ROOT) && !id.startsWith(workDir) && !id.includes('/node_modules/'));
  if (fromWorkspace.length > 0 || !ids.some((id) => id.startsWith(`${unpacked}${app.adapter}/`))) {
    throw new Error(
      `the app must bundle ${app.adapter} from its tarball, not the workspace: ${fromWorkspace.join(', ') || 'not bundled at all'}`,
    );
  }
}

async function buildApp(workDir: string, name: string, main: string, external: RegExp[] = []): Promise<Built> {
  const root = join(workDir, name.replace(/\W+/g, '-'));
  await rm(root, { recursive: true, force: true });
  await mkdir(join(root, 'src'), { recursive: true });
  await writeFile(join(root, 'index.html'), PAGE);
  await writeFile(join(root, 'src', 'main.ts'), main);
  // Vite's defaults (target, minifier, chunking); only what this measure needs: nothing written, nothing printed, the split-out dependency.
  const out = await build({
    configFile: false,
    root,
    logLevel: 'silent',
    build: { write: false, reportCompressedSize: false, rollupOptions: { external } },
  });
  const outputs = (Array.isArray(out) ? out : [out]) as Rollup.RollupOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((c): c is Rollup.OutputChunk => c.type === 'chunk');
  const code = chunks.map((c) => c.code).join('\n');
  return { gzip: gzipSync(code, { level: GZIP_LEVEL }).length, minified: Buffer.byteLength(code), chunks };
}

const kb = (bytes: number) => `${bytes} B = ${(bytes / 1024).toFixed(2)} KB = ${(bytes / 1000).toFixed(2)} kB`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

const verdict = (bytes: number, budget: number) => `budget ≤ ${kb(budget)} gzip: ${bytes <= budget ? 'met' : 'EXCEEDED'}`;

/**
 * Builds the app alone, with Sammy and in pace-only mode, prints what Sammy adds in each mode
 * against its budget, and sets a failing exit code above either budget.
 */
export async function checkBundleBudget(app: BundleApp): Promise<void> {
  const workDir = await installTarballs(app);
  const [alone, withSammy, paceOnly] = await Promise.all(
    (['alone', 'with', 'pace-only'] as const).map((name, i) =>
      buildApp(workDir, name, [app.apps.alone, app.apps.sammy, app.apps.paceOnly][i]!),
    ),
  );
  assertFromTarballs(app, workDir, withSammy!);
  assertFromTarballs(app, workDir, paceOnly!);
  const added = withSammy!.gzip - alone!.gzip;
  const addedPaceOnly = paceOnly!.gzip - alone!.gzip;
  console.log(
    `${app.adapter} adds to a Vite app with ${app.player}: ${kb(added)} gzip (${verdict(added, BUDGET_GZIP_BYTES)}), in pace-only mode ${kb(addedPaceOnly)} gzip (${verdict(addedPaceOnly, PACE_ONLY_BUDGET_GZIP_BYTES)})`,
  );
  await rm(workDir, { recursive: true, force: true });
  if (added > BUDGET_GZIP_BYTES || addedPaceOnly > PACE_ONLY_BUDGET_GZIP_BYTES) process.exitCode = 1;
}

/** Runs the full report, or with `--budget` on the command line only the budget check. */
export async function main(app: BundleApp): Promise<void> {
  if (process.argv.includes('--budget')) await checkBundleBudget(app);
  else await reportBundleCost(app);
}

/** Prints the figures; returns the gzip bytes Sammy adds in its default mode. */
export async function reportBundleCost(app: BundleApp): Promise<number> {
  /** Packages whose bundled modules are counted (by path), in the order printed; the adapter's own first. */
  const parts: ReadonlyArray<[label: string, path: RegExp, external: RegExp]> = [
    [app.adapter, new RegExp(`node_modules/${escape(app.adapter)}/dist/`), new RegExp(`^${escape(app.adapter)}(/|$)`)],
    ['sammy-pacing-core', /node_modules\/sammy-pacing-core\/dist\//, /^sammy-pacing-core$/],
    ['sammy-pacing-protocol', /node_modules\/sammy-pacing-protocol\/dist\//, /^sammy-pacing-protocol(\/|$)/],
    ['@svta/cml-cmcd', /@svta\/cml-cmcd\//, /^@svta\/cml-cmcd$/],
    ['@svta/cml-utils', /@svta\/cml-utils\//, /^@svta\/cml-utils$/],
    ['@svta/cml-structured-field-values', /@svta\/cml-structured-field-values\//, /^@svta\/cml-structured-field-values$/],
  ];
  const workDir = await installTarballs(app);
  const alone = await buildApp(workDir, 'alone', app.apps.alone);
  const withSammy = await buildApp(workDir, 'with', app.apps.sammy);
  assertFromTarballs(app, workDir, withSammy);
  const paceOnly = await buildApp(workDir, 'pace-only', app.apps.paceOnly);
  const added = withSammy.gzip - alone.gzip;
  const row = (label: string) => `  ${label.padEnd(44)}: `;
  console.log(
    `\nBundle cost of ${app.adapter} in a Vite app (its packed tarballs, Vite's default build, JS gzipped at level ${GZIP_LEVEL}):`,
  );
  console.log(`${row(`${app.player} alone`)}${kb(alone.gzip)} gzip (${kb(alone.minified)} minified)`);
  console.log(`${row(`${app.player} + Sammy (README snippet)`)}${kb(withSammy.gzip)} gzip (${kb(withSammy.minified)} minified)`);
  console.log(
    `${row('added by Sammy')}${kb(added)} gzip, ${kb(withSammy.minified - alone.minified)} minified   (${verdict(added, BUDGET_GZIP_BYTES)})`,
  );
  console.log(
    `${row('added by Sammy in pace-only mode')}${kb(paceOnly.gzip - alone.gzip)} gzip, ${kb(paceOnly.minified - alone.minified)} minified   (${verdict(paceOnly.gzip - alone.gzip, PACE_ONLY_BUDGET_GZIP_BYTES)}; pace-only's own share: ${kb(paceOnly.gzip - withSammy.gzip)} gzip)`,
  );

  console.log('  what each dependency costs (gzip added without it in the bundle → its share):');
  for (const [label, , external] of parts.slice(1)) {
    const without = await buildApp(workDir, `without-${label}`, app.apps.sammy, [external]);
    console.log(`    ${label.padEnd(40)}: ${kb(withSammy.gzip - without.gzip)}`);
  }

  console.log('  bundled modules, bytes before minification (tree-shaken):');
  const modules = withSammy.chunks.flatMap((c) => Object.entries(c.modules));
  for (const [label, path] of parts) {
    const mine = modules.filter(([id, m]) => path.test(id) && m.renderedLength > 0);
    const total = mine.reduce((sum, [, m]) => sum + m.renderedLength, 0);
    console.log(`    ${label.padEnd(40)}: ${String(total).padStart(6)} B in ${mine.length} modules`);
    for (const [id, m] of mine.sort((a, b) => b[1].renderedLength - a[1].renderedLength)) {
      console.log(`      ${String(m.renderedLength).padStart(6)} B  ${id.replace(/^.*node_modules\//, '')}`);
    }
  }
  await rm(workDir, { recursive: true, force: true });
  return added;
}

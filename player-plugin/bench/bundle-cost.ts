/**
 * What an adapter adds to a real app, the same way for every adapter: one Vite app (the player
 * playing the test content) built without and with Sammy (the adapter README's snippet), and with
 * pace-only mode, minified by Vite, JS gzipped. The adapter resolves as an app would resolve it,
 * through its package `exports` to the built dist (run `npm run build` first), and brings its
 * dependencies as they are. Then the same app with one dependency left out of the bundle
 * (external) at a time: what is left of the difference is that dependency's share; and the
 * bundled modules of each by size before minification.
 *
 * Each adapter's bench/bundle-cost.ts describes its app (`BundleApp`) and calls `reportBundleCost`;
 * with `--budget` (its `test:size` script, part of its `npm test`) it builds only the three apps,
 * prints what Sammy adds and exits non-zero above the budget.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Rollup } from 'vite';

/** The budget for what an adapter adds in its default mode, gzip bytes (issue 32). */
export const BUDGET_GZIP_BYTES = 8 * 1024;
/** The budget for what an adapter adds in pace-only mode, gzip bytes (issue 32). */
export const PACE_ONLY_BUDGET_GZIP_BYTES = 9 * 1024;
/** Gzip level of a typical static server / CDN. */
const GZIP_LEVEL = 6;

export interface BundleApp {
  /** The player, for the printout: 'dash.js'. */
  player: string;
  /** The adapter package: 'sammy-pacing-dashjs'; its dist is found under player-plugin/<folder>/dist. */
  adapter: string;
  folder: string;
  /** Where the apps are built: inside the adapter's node_modules, so the player and the adapter resolve as in an app. */
  workDir: string;
  /** main.js of the app without Sammy, with Sammy (the README snippet), and in pace-only mode. */
  apps: { alone: string; sammy: string; paceOnly: string };
}

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>app</title></head>
<body><video muted playsinline></video><script type="module" src="./main.js"></script></body></html>
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

async function buildApp(workDir: string, name: string, main: string, external: RegExp[] = []): Promise<Built> {
  const root = join(workDir, name.replace(/\W+/g, '-'));
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'index.html'), PAGE);
  await writeFile(join(root, 'main.js'), main);
  const out = await build({
    configFile: false,
    root,
    logLevel: 'silent',
    build: { write: false, target: 'es2022', reportCompressedSize: false, chunkSizeWarningLimit: 5000, rollupOptions: { external } },
  });
  const outputs = (Array.isArray(out) ? out : [out]) as Rollup.RollupOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((c): c is Rollup.OutputChunk => c.type === 'chunk');
  const code = chunks.map((c) => c.code).join('\n');
  return { gzip: gzipSync(code, { level: GZIP_LEVEL }).length, minified: Buffer.byteLength(code), chunks };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

const verdict = (bytes: number, budget: number) => `budget ≤ ${kb(budget)} gzip: ${bytes <= budget ? 'met' : 'EXCEEDED'}`;

/**
 * Builds the app alone, with Sammy and in pace-only mode, prints what Sammy adds in each mode
 * against its budget, and sets a failing exit code above either budget.
 */
export async function checkBundleBudget(app: BundleApp): Promise<void> {
  const [alone, withSammy, paceOnly] = await Promise.all(
    (['alone', 'with', 'pace-only'] as const).map((name, i) => buildApp(app.workDir, name, [app.apps.alone, app.apps.sammy, app.apps.paceOnly][i]!)),
  );
  const added = withSammy!.gzip - alone!.gzip;
  const addedPaceOnly = paceOnly!.gzip - alone!.gzip;
  console.log(`${app.adapter} adds to a Vite app with ${app.player}: ${kb(added)} gzip (${verdict(added, BUDGET_GZIP_BYTES)}), in pace-only mode ${kb(addedPaceOnly)} gzip (${verdict(addedPaceOnly, PACE_ONLY_BUDGET_GZIP_BYTES)})`);
  await rm(app.workDir, { recursive: true, force: true });
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
    [app.adapter, new RegExp(`player-plugin/${escape(app.folder)}/dist/`), new RegExp(`^${escape(app.adapter)}(/|$)`)],
    ['sammy-pacing-core', /player-plugin\/core\/dist\//, /^sammy-pacing-core$/],
    ['sammy-pacing-protocol', /\/protocol\/dist\//, /^sammy-pacing-protocol(\/|$)/],
    ['@svta/cml-cmcd', /@svta\/cml-cmcd\//, /^@svta\/cml-cmcd$/],
    ['@svta/cml-utils', /@svta\/cml-utils\//, /^@svta\/cml-utils$/],
    ['@svta/cml-structured-field-values', /@svta\/cml-structured-field-values\//, /^@svta\/cml-structured-field-values$/],
  ];
  const alone = await buildApp(app.workDir, 'alone', app.apps.alone);
  const withSammy = await buildApp(app.workDir, 'with', app.apps.sammy);
  const paceOnly = await buildApp(app.workDir, 'pace-only', app.apps.paceOnly);
  const added = withSammy.gzip - alone.gzip;
  const row = (label: string) => `  ${label.padEnd(44)}: `;
  console.log(`\nBundle cost of ${app.adapter} in a Vite app (minified by Vite, JS gzipped at level ${GZIP_LEVEL}):`);
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
    const without = await buildApp(app.workDir, `without-${label}`, app.apps.sammy, [external]);
    console.log(`    ${label.padEnd(40)}: ${kb(withSammy.gzip - without.gzip)}`);
  }

  console.log('  bundled modules, bytes before minification (tree-shaken):');
  const modules = withSammy.chunks.flatMap((c) => Object.entries(c.modules));
  for (const [label, path] of parts) {
    const mine = modules.filter(([id, m]) => path.test(id) && m.renderedLength > 0);
    const total = mine.reduce((sum, [, m]) => sum + m.renderedLength, 0);
    console.log(`    ${label.padEnd(40)}: ${String(total).padStart(6)} B in ${mine.length} modules`);
    for (const [id, m] of mine.sort((a, b) => b[1].renderedLength - a[1].renderedLength)) {
      console.log(`      ${String(m.renderedLength).padStart(6)} B  ${id.replace(/^.*node_modules\//, '').replace(/^.*\/(player-plugin|protocol)\//, '$1/')}`);
    }
  }
  await rm(app.workDir, { recursive: true, force: true });
  return added;
}

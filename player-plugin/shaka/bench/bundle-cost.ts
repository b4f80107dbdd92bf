/**
 * What the adapter adds to a real app: the same Vite app (Shaka Player 5 playing a manifest) built without
 * and with `attach` (the README's snippet, Sammy's own mode), minified by Vite, JS gzipped; and
 * with `attach(player, { mode: paceOnly })` (pace-only mode, from its own entry, which an app in
 * the default mode must not pay for). The plugin resolves as an app would resolve it, through its
 * package `exports` to the built dist (run `npm run build` first), and brings its dependencies
 * (sammy-pacing-core, sammy-pacing-protocol, @svta/cml-cmcd) as they are. Then the same app with
 * one dependency left out of the bundle (external) at a time: what is left of the difference is
 * what that dependency costs; and the bundled modules of each dependency by size before
 * minification.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Rollup } from 'vite';

/** Inside the package's node_modules, so `shaka-player` and `sammy-pacing-shaka` resolve as in an app. */
const WORK = fileURLToPath(new URL('../node_modules/.cache/sammy-shaka-bundle-cost/', import.meta.url));

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>app</title></head>
<body><video muted playsinline></video><script type="module" src="./main.js"></script></body></html>
`;

const PLAYER = `import shaka from 'shaka-player';
const video = document.querySelector('video');
if (!video) throw new Error('the page needs a <video> element');
const player = new shaka.Player();
await player.attach(video);
`;

const LOAD = `await player.load(new URL('/media/default/manifest.mpd', location.href).href);
`;
const SAMMY = `sammy.on('decision', (d) => console.log(\`\${d.phase}: \${d.bitrateKbps} kbps, pace \${d.paceRateKbps ?? 'none'} kbps\`));
${LOAD}`;

const APPS = {
  'Shaka alone': `${PLAYER}${LOAD}`,
  'Shaka + Sammy': `${PLAYER.replace("from 'shaka-player';", "from 'shaka-player';\nimport { attach } from 'sammy-pacing-shaka';")}const sammy = attach(player);
${SAMMY}`,
  'Shaka + Sammy pace-only': `${PLAYER.replace(
    "from 'shaka-player';",
    "from 'shaka-player';\nimport { attach } from 'sammy-pacing-shaka';\nimport { paceOnly } from 'sammy-pacing-shaka/pace-only';",
  )}const sammy = attach(player, { mode: paceOnly });
${SAMMY}`,
} as const;

/** Gzip level of a typical static server / CDN. */
const GZIP_LEVEL = 6;

/** Packages whose bundled modules are counted (by path), in the order printed. */
const PARTS: ReadonlyArray<[label: string, path: RegExp, external: RegExp]> = [
  ['sammy-pacing-shaka', /player-plugin\/shaka\/dist\//, /^sammy-pacing-shaka(\/|$)/],
  ['sammy-pacing-core', /player-plugin\/core\/dist\//, /^sammy-pacing-core$/],
  ['sammy-pacing-protocol', /\/protocol\/dist\//, /^sammy-pacing-protocol(\/|$)/],
  ['@svta/cml-cmcd', /@svta\/cml-cmcd\//, /^@svta\/cml-cmcd$/],
  ['@svta/cml-utils', /@svta\/cml-utils\//, /^@svta\/cml-utils$/],
  ['@svta/cml-structured-field-values', /@svta\/cml-structured-field-values\//, /^@svta\/cml-structured-field-values$/],
];

interface Built {
  gzip: number;
  minified: number;
  chunks: Rollup.OutputChunk[];
}

async function buildApp(name: string, main: string, external: RegExp[] = []): Promise<Built> {
  const root = join(WORK, name.replace(/\W+/g, '-'));
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

export async function reportBundleCost(): Promise<void> {
  const alone = await buildApp('alone', APPS['Shaka alone']);
  const withSammy = await buildApp('with', APPS['Shaka + Sammy']);
  const paceOnly = await buildApp('pace-only', APPS['Shaka + Sammy pace-only']);
  const added = withSammy.gzip - alone.gzip;
  console.log(`\nBundle cost in a Vite app (minified by Vite, JS gzipped at level ${GZIP_LEVEL}):`);
  console.log(`  Shaka alone                                 : ${kb(alone.gzip)} gzip (${kb(alone.minified)} minified)`);
  console.log(`  Shaka + Sammy (README snippet)              : ${kb(withSammy.gzip)} gzip (${kb(withSammy.minified)} minified)`);
  console.log(`  added by Sammy                              : ${kb(added)} gzip, ${kb(withSammy.minified - alone.minified)} minified   (target ≤ 6 KB gzip: ${added <= 6 * 1024 ? 'met' : 'MISSED'})`);
  console.log(`  added by Sammy in pace-only mode            : ${kb(paceOnly.gzip - alone.gzip)} gzip, ${kb(paceOnly.minified - alone.minified)} minified   (pace-only's own share: ${kb(paceOnly.gzip - withSammy.gzip)} gzip)`);

  console.log('  what each dependency costs (gzip added without it in the bundle → its share):');
  for (const [label, , external] of PARTS.slice(1)) {
    const without = await buildApp(`without-${label}`, APPS['Shaka + Sammy'], [external]);
    const share = withSammy.gzip - without.gzip;
    console.log(`    ${label.padEnd(40)}: ${kb(share)}`);
  }

  console.log('  bundled modules, bytes before minification (tree-shaken):');
  const modules = withSammy.chunks.flatMap((c) => Object.entries(c.modules));
  for (const [label, path] of PARTS) {
    const mine = modules.filter(([id, m]) => path.test(id) && m.renderedLength > 0);
    const total = mine.reduce((sum, [, m]) => sum + m.renderedLength, 0);
    console.log(`    ${label.padEnd(40)}: ${String(total).padStart(6)} B in ${mine.length} modules`);
    for (const [id, m] of mine.sort((a, b) => b[1].renderedLength - a[1].renderedLength)) {
      console.log(`      ${String(m.renderedLength).padStart(6)} B  ${id.replace(/^.*node_modules\//, '').replace(/^.*\/(player-plugin|protocol)\//, '$1/')}`);
    }
  }
  await rm(WORK, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await reportBundleCost();

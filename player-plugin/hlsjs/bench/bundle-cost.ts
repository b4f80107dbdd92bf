/**
 * What the adapter adds to a real app: the same Vite app (hls.js playing a playlist) built without
 * and with Sammy (the README's snippet), minified by Vite, JS gzipped; and in pace-only mode. The
 * adapter resolves as an app would resolve it, through its package `exports` to the built dist
 * (run `npm run build` first), and brings its dependencies (sammy-pacing-core,
 * sammy-pacing-protocol, @svta/cml-cmcd) as they are. hls.js's own copy of cml-cmcd is bundled
 * inside hls.js, so the app pays for the one the adapter imports (its key tables) separately.
 *
 *   npm run build -w sammy-pacing-hlsjs && npm run bench:bundle -w sammy-pacing-hlsjs
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Rollup } from 'vite';

/** Inside the package's node_modules, so `hls.js` and `sammy-pacing-hlsjs` resolve as in an app. */
const WORK = fileURLToPath(new URL('../node_modules/.cache/sammy-bundle-cost/', import.meta.url));

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>app</title></head>
<body><video muted playsinline></video><script type="module" src="./main.js"></script></body></html>
`;

const VIDEO = `const video = document.querySelector('video');
if (!video) throw new Error('the page needs a <video> element');
`;
const PLAY = `hls.loadSource('/media/default/master.m3u8');
hls.attachMedia(video);
`;
const LOG = `sammy.on('decision', (d) => console.log(\`\${d.phase}: \${d.bitrateKbps} kbps, pace \${d.paceRateKbps ?? 'none'} kbps\`));
`;

const APPS = {
  alone: `import Hls from 'hls.js';\n${VIDEO}const hls = new Hls({ cmcd: {} });\n${PLAY}`,
  sammy: `import Hls from 'hls.js';\nimport { attach, sammyConfig } from 'sammy-pacing-hlsjs';\n${VIDEO}const hls = new Hls(sammyConfig());\nconst sammy = attach(hls);\n${LOG}${PLAY}`,
  paceOnly: `import Hls from 'hls.js';\nimport { attach, sammyConfig } from 'sammy-pacing-hlsjs';\nimport { paceOnly } from 'sammy-pacing-hlsjs/pace-only';\n${VIDEO}const hls = new Hls(sammyConfig());\nconst sammy = attach(hls, { mode: paceOnly });\n${LOG}${PLAY}`,
} as const;

/** Gzip level of a typical static server / CDN. */
const GZIP_LEVEL = 6;

const PARTS: ReadonlyArray<[label: string, path: RegExp]> = [
  ['sammy-pacing-hlsjs', /player-plugin\/hlsjs\/dist\//],
  ['sammy-pacing-core', /player-plugin\/core\/dist\//],
  ['sammy-pacing-protocol', /\/protocol\/dist\//],
  ['@svta/cml-cmcd (the adapter’s)', /@svta\/cml-cmcd\//],
];

interface Built {
  gzip: number;
  minified: number;
  chunks: Rollup.OutputChunk[];
}

async function buildApp(name: string, main: string): Promise<Built> {
  const root = join(WORK, name);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'index.html'), PAGE);
  await writeFile(join(root, 'main.js'), main);
  const out = await build({
    configFile: false,
    root,
    logLevel: 'silent',
    build: { write: false, target: 'es2022', reportCompressedSize: false, chunkSizeWarningLimit: 5000 },
  });
  const outputs = (Array.isArray(out) ? out : [out]) as Rollup.RollupOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((c): c is Rollup.OutputChunk => c.type === 'chunk');
  const code = chunks.map((c) => c.code).join('\n');
  return { gzip: gzipSync(code, { level: GZIP_LEVEL }).length, minified: Buffer.byteLength(code), chunks };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

export interface BundleCost {
  aloneGzip: number;
  addedGzip: number;
  addedPaceOnlyGzip: number;
}

export async function reportBundleCost(): Promise<BundleCost> {
  const alone = await buildApp('alone', APPS.alone);
  const sammy = await buildApp('sammy', APPS.sammy);
  const paceOnly = await buildApp('pace-only', APPS.paceOnly);
  const added = sammy.gzip - alone.gzip;
  console.log(`\nBundle cost in a Vite app (minified by Vite, JS gzipped at level ${GZIP_LEVEL}):`);
  console.log(`  hls.js alone (CMCD on)                : ${kb(alone.gzip)} gzip (${kb(alone.minified)} minified)`);
  console.log(`  hls.js + Sammy (README snippet)       : ${kb(sammy.gzip)} gzip (${kb(sammy.minified)} minified)`);
  console.log(`  added by Sammy                        : ${kb(added)} gzip, ${kb(sammy.minified - alone.minified)} minified   (target ≤ 6 KB gzip: ${added <= 6 * 1024 ? 'met' : 'MISSED'})`);
  console.log(`  added by Sammy, pace-only mode        : ${kb(paceOnly.gzip - alone.gzip)} gzip`);
  console.log('  bundled modules, bytes before minification (tree-shaken):');
  const modules = sammy.chunks.flatMap((c) => Object.entries(c.modules));
  for (const [label, path] of PARTS) {
    const mine = modules.filter(([id, m]) => path.test(id) && !/hls\.js\//.test(id) && m.renderedLength > 0);
    const total = mine.reduce((sum, [, m]) => sum + m.renderedLength, 0);
    console.log(`    ${label.padEnd(34)}: ${String(total).padStart(6)} B in ${mine.length} modules`);
    for (const [id, m] of mine.sort((a, b) => b[1].renderedLength - a[1].renderedLength)) console.log(`      ${String(m.renderedLength).padStart(6)} B  ${id.replace(/^.*\/(player-plugin|protocol|node_modules)\//, "$1/")}`);
  }
  await rm(WORK, { recursive: true, force: true });
  return { aloneGzip: alone.gzip, addedGzip: added, addedPaceOnlyGzip: paceOnly.gzip - alone.gzip };
}

if (import.meta.url === `file://${process.argv[1]}`) await reportBundleCost();

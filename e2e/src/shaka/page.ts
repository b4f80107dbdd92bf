/**
 * The Shaka Player test page: a small Vite build (in the repository's .cache, so that shaka-player
 * and sammy-pacing-shaka resolve as in an app — the adapter through its package exports to its
 * built dist) of a page that plays a manifest with Shaka 5 and `attach(player, options)`, Shaka's
 * own CMCD on with every key (its own `rtp` included, which Sammy must replace). The page pushes the
 * adapter's decisions and samples into the e2e log (window.__e2e, src/session.ts) and reads its
 * options from the query: `mode=pace-only`, `cmcd=header`, `sammy=none` (Shaka alone).
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../repo-root.js';

const ROOT = join(REPO_ROOT, '.cache', 'e2e-shaka-page');

const INDEX_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8" /><link rel="icon" href="data:," /><title>Shaka + Sammy</title></head>
<body><video muted playsinline width="640" height="360"></video><script type="module" src="./main.ts"></script></body></html>
`;

const MAIN_TS = `import shaka from 'shaka-player';
import { attach, memoryStore } from 'sammy-pacing-shaka';
import { paceOnly } from 'sammy-pacing-shaka/pace-only';

const params = new URLSearchParams(location.search);
const log = (window as any).__e2e;
const video = document.querySelector('video')!;
shaka.polyfill.installAll();
const player = new shaka.Player();
(window as any).shakaPlayer = player;
await player.attach(video);
// Shaka's own CMCD, every key: its own rtp (rtpSafetyFactor × segment size / buffer) included.
player.configure({ cmcd: { enabled: true, includeKeys: [], rtpSafetyFactor: 5, useHeaders: params.get('cmcd') === 'header' } });
// Headless Chromium on two shared cores drops frames under load, and Shaka's ABR then bans the rung
// for 30 s: a verdict on the test machine, not on the pacing under test.
player.configure({ abr: { droppedFrames: false } });
// sammy=none: Shaka alone (what its own CMCD sends).
if (params.get('sammy') !== 'none') {
  // The paper's multipliers, so the origin's pacing is checked at the paces the adapter's tests
  // assume whatever the core's defaults (the consumer test runs those, through the README snippet).
  const sammy = attach(player, { mode: params.get('mode') === 'pace-only' ? paceOnly : 'sammy', c0: 3.2, c1: 2.8, initialHistory: memoryStore() });
  (window as any).sammy = sammy;
  sammy.on('decision', (d) => log?.decisions.push(d));
  sammy.on('sample', (s) => log?.samples.push(s));
}
player.addEventListener('error', (e) => log?.playerErrors.push(JSON.stringify((e as any).detail ?? e)));
try {
  // Shaka wants an absolute URI (a bare path would become http://media/…).
  await player.load(new URL(params.get('src') ?? '/media/default/manifest.mpd', location.href).href);
  await video.play();
} catch (error) {
  log?.playerErrors.push(String((error as any)?.code ?? error));
}
`;

/** Builds the page (unminified: it is only served to the test) and returns the directory to serve. */
export async function buildShakaPage(): Promise<string> {
  const dist = join(REPO_ROOT, 'player-plugin', 'shaka', 'dist', 'sammy.js');
  if (!existsSync(dist)) throw new Error('The Shaka e2e page needs sammy-pacing-shaka built: run `npm run build -w sammy-pacing-shaka`.');
  await rm(ROOT, { recursive: true, force: true });
  await mkdir(ROOT, { recursive: true });
  await writeFile(join(ROOT, 'index.html'), INDEX_HTML);
  await writeFile(join(ROOT, 'main.ts'), MAIN_TS);
  const { build } = await import('vite');
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    build: {
      outDir: join(ROOT, 'dist'),
      emptyOutDir: true,
      target: 'es2022',
      minify: false,
      reportCompressedSize: false,
      chunkSizeWarningLimit: 10_000,
    },
  });
  return join(ROOT, 'dist');
}

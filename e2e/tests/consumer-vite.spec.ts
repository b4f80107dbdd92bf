/**
 * The root README's quick start, followed verbatim: a new Vite + TypeScript app (create-vite's
 * vanilla-ts shape, see vite-app.ts), the README's install command (its tarball folder replaced by this
 * repository's .cache/packages), its index.html, its dash.js snippet as src/main.ts and its
 * vite.config.ts, all read from README.md at test time. Strict `tsc` and `vite build` pass; `npm run
 * dev` with the README's proxy (its origin address replaced by a reference origin on a free port)
 * plays in Chromium, sending as `rtp` the pace it decided, which the origin applies; so does the built
 * app served by the origin itself, over HTTP/1.1 and over HTTP/2; and so does the app on another
 * origin with the absolute media URL the README gives for that case (CORS).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { h2SpkiHash, trustingDevCertificate } from '../src/origin-env.js';
import { devCertificate, startOrigin, type RunningOrigin } from '@sammy/origin-server';
import { expectAppPlaysPaced, expectServedAppPlaysPaced } from '../src/consumer/plays-paced.js';
import { entryPoints, installArgsFromReadme, packPackages, publishablePackages, tarballName } from '../src/consumer/packages.js';
import { REPO_ROOT } from '../src/repo-root.js';
import { createTempApp, isInstalledCopy, npmInstall, type TempApp } from '../src/consumer/temp-app.js';
import { freePort } from '../src/consumer/process.js';
import { readDashjsReadme, viteAppFiles, type ReadmeInstructions } from '../src/consumer/vite-app.js';

/** The Node-only package; everything else is for the page. */
const SERVER_PACKAGE = 'sammy-pacing-express';

test.describe.configure({ mode: 'serial' });

test.use({ launchOptions: trustingDevCertificate() });

/** The origin address in the README's vite.config.ts; the tests put a free port's in its place. */
const README_ORIGIN = 'http://127.0.0.1:8080';
/** The absolute media URL the README gives for a page on another origin. */
const README_CROSS_ORIGIN_MANIFEST = 'http://localhost:8080/media/default/manifest.mpd';
/** The snippet's same-origin manifest URL, which that one replaces. */
const SNIPPET_MANIFEST = "new URL('/media/default/manifest.mpd', location.href).href";

let app: TempApp | undefined;
let readme: ReadmeInstructions;

/** `text` with `from` (which must occur exactly once) replaced. */
function replaceOnce(text: string, from: string, to: string): string {
  expect(text.split(from).length - 1, `"${from}" once in:\n${text}`).toBe(1);
  return text.replace(from, to);
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  readme = await readDashjsReadme();
  expect(readme.cloneCommands.join('\n'), 'the README packs the packages the way this test does').toContain('npm run pack:packages');
  // What viteAppFiles emulates (create-vite's files, without its network round trip on every run).
  expect(readme.appCommands, 'the README makes a vanilla-ts Vite app').toContainEqual(
    expect.stringMatching(/^npm create vite@\S+ [\w-]+ -- --template vanilla-ts$/),
  );
  await packPackages();
  const installArgs = installArgsFromReadme(readme.appCommands);
  // Every entry point of the browser packages this README installs (the other players' adapters have their own tests).
  const browserEntryPoints = publishablePackages()
    .filter((p) => p.manifest.name !== SERVER_PACKAGE && installArgs.some((arg) => arg.endsWith(tarballName(p.manifest))))
    .flatMap((p) => entryPoints(p.manifest));
  expect(browserEntryPoints).toEqual(expect.arrayContaining(['sammy-pacing-dashjs', 'sammy-pacing-dashjs/pace-only', 'sammy-pacing-core']));
  app = await createTempApp(
    'vite',
    viteAppFiles(readme.snippet, browserEntryPoints, { 'index.html': readme.indexHtml, 'vite.config.ts': readme.viteConfig }),
  );
  await npmInstall(app, installArgs);
});

test.afterAll(async () => {
  await app?.remove();
});

test('the README install gives the app the packed packages, and nothing of the server side', () => {
  for (const name of ['sammy-pacing-dashjs', 'sammy-pacing-core', 'sammy-pacing-protocol', 'dashjs']) {
    expect(isInstalledCopy(app!, name), `${name} installed into the app`).toBe(true);
  }
  for (const name of [SERVER_PACKAGE, 'koffi', 'express', '@ffmpeg-installer/ffmpeg']) {
    expect(isInstalledCopy(app!, name), `${name} must not come with the player packages`).toBe(false);
  }
});

test('strict tsc passes on the README snippet and on every browser entry point, and vite build succeeds', async () => {
  // The template's own build script is `tsc && vite build`.
  await app!.bin('tsc', []);
  await app!.bin('tsc', ['-p', 'types-check']);
  await app!.bin('vite', ['build']);
});

test('the built app plays in Chromium; rtp on the wire = the printed pace = the pace the origin applied', async ({ page }) => {
  test.setTimeout(120_000);
  // The app's dist as the site, the test ladder at /media/ (the snippet's manifest path).
  await expectServedAppPlaysPaced(page, `${app!.dir}/dist`);
});

test("the same over HTTPS with HTTP/2: one connection, its pace never below a segment's rtp", async ({ page }) => {
  test.setTimeout(120_000);
  // The global setup's development certificate, which this file's Chromium trusts by its SPKI hash.
  const tls = await devCertificate();
  expect(tls.spkiHash, 'the certificate Chromium was told to trust').toBe(h2SpkiHash());
  await expectServedAppPlaysPaced(page, `${app!.dir}/dist`, { shared: true }, { tls });
});

test("the README's dev server (`npm run dev`, its proxy for /media) plays in Chromium, paced", async ({ page }) => {
  test.setTimeout(180_000);
  const origin = await startOrigin({ port: 0, host: '127.0.0.1', congestionControl: 'cubic' });
  const config = join(app!.dir, 'vite.config.ts');
  await writeFile(config, replaceOnce(readme.viteConfig, README_ORIGIN, origin.url));
  const port = await freePort();
  // Its own process group, so that npm, its shell and Vite stop together.
  const dev = spawn('npm', ['run', 'dev', '--', '--port', String(port), '--strictPort', '--host', '127.0.0.1'], {
    cwd: app!.dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let output = '';
  dev.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  dev.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const serves = async () =>
    dev.exitCode === null &&
    (await fetch(`http://127.0.0.1:${port}/`).then(
      (r) => r.ok,
      () => false,
    ));
  try {
    await expect.poll(serves, { timeout: 60_000, message: 'vite dev serves the page' }).toBe(true);
    await expectAppPlaysPaced(page, `http://127.0.0.1:${port}`);
    expect(output, 'no proxy error in the dev server').not.toMatch(/proxy error/i);
  } finally {
    if (dev.exitCode === null) process.kill(-dev.pid!, 'SIGTERM');
    await writeFile(config, readme.viteConfig);
    await origin.close();
  }
});

test("on another origin, with the README's absolute media URL: CORS lets it play, paced", async ({ page }) => {
  test.setTimeout(180_000);
  expect(await readFile(join(REPO_ROOT, 'README.md'), 'utf8'), 'the README gives the absolute URL for another origin').toContain(
    `'${README_CROSS_ORIGIN_MANIFEST}'`,
  );
  const media = await startOrigin({ port: 0, host: '127.0.0.1', congestionControl: 'cubic' });
  const emptyMedia = await mkdtemp(join(tmpdir(), 'sammy-no-media-'));
  let site: RunningOrigin | undefined;
  try {
    const manifest = README_CROSS_ORIGIN_MANIFEST.replace('http://localhost:8080', media.url);
    await writeFile(join(app!.dir, 'src', 'main.ts'), replaceOnce(readme.snippet, SNIPPET_MANIFEST, `'${manifest}'`));
    await app!.bin('vite', ['build', '--outDir', 'dist-cross-origin']);
    // A static host on another port, serving no media: every segment must come from the media origin.
    site = await startOrigin({ port: 0, host: '127.0.0.1', siteDir: join(app!.dir, 'dist-cross-origin'), mediaDir: emptyMedia });
    const { watched } = await expectAppPlaysPaced(page, site.url);
    expect(
      new Set(watched.requests.filter((r) => r.isSegment).map((r) => new URL(r.url).origin)),
      'segments from the media origin',
    ).toEqual(new Set([media.url]));
  } finally {
    await writeFile(join(app!.dir, 'src', 'main.ts'), readme.snippet);
    await site?.close();
    await media.close();
    await rm(emptyMedia, { recursive: true, force: true });
  }
});

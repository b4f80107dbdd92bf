/**
 * A user's Vite + TypeScript app with hls.js, built from the packed tarballs alone:
 * docs/players.md's hls.js install command (its tarball folder replaced by this repository's
 * .cache/packages) in a fresh project outside the repository, the README's hls.js snippet verbatim
 * as src/main.ts. Strict `tsc` and `vite build` pass, and the built app plays the HLS playlists in
 * Chromium against the reference origin, sending as `rtp` the pace it printed, which the origin
 * applies; none before playback starts.
 */
import { expect, test } from '@playwright/test';
import { DEFAULT_HLS_MASTER_PATH } from '@sammy/test-content/media-paths';
import { readHlsjsReadme } from '../src/consumer/hlsjs-readme.js';
import { expectServedAppPlaysPaced } from '../src/consumer/plays-paced.js';
import { entryPoints, installArgsFromReadme, packPackages, publishablePackages } from '../src/consumer/packages.js';
import { createTempApp, isInstalledCopy, npmInstall, type TempApp } from '../src/consumer/temp-app.js';
import { viteAppFiles } from '../src/consumer/vite-app.js';

test.describe.configure({ mode: 'serial' });

let app: TempApp | undefined;

test.beforeAll(async () => {
  test.setTimeout(300_000);
  const readme = await readHlsjsReadme();
  expect(readme.snippet).toContain("from 'sammy-pacing-hlsjs'");
  await packPackages();
  // The app's type check covers the entry points of what it installs for the page.
  const installed = ['sammy-pacing-protocol', 'sammy-pacing-core', 'sammy-pacing-hlsjs'];
  const browserEntryPoints = publishablePackages()
    .filter((p) => installed.includes(p.manifest.name))
    .flatMap((p) => entryPoints(p.manifest));
  app = await createTempApp('vite-hlsjs', viteAppFiles(readme.snippet, browserEntryPoints));
  await npmInstall(app, installArgsFromReadme(readme.appCommands));
});

test.afterAll(async () => {
  await app?.remove();
});

test('the README install gives the app hls.js and the packed packages, and nothing of the server side', () => {
  for (const name of ['sammy-pacing-hlsjs', 'sammy-pacing-core', 'sammy-pacing-protocol', 'hls.js']) {
    expect(isInstalledCopy(app!, name), `${name} installed into the app`).toBe(true);
  }
  for (const name of ['sammy-pacing-express', 'dashjs', 'koffi', 'express']) {
    expect(isInstalledCopy(app!, name), `${name} must not come with the hls.js adapter`).toBe(false);
  }
});

test('strict tsc passes on the README snippet and on every entry point it installs (pace-only included), and vite build succeeds', async () => {
  await app!.bin('tsc', []);
  await app!.bin('tsc', ['-p', 'types-check']);
  await app!.bin('vite', ['build']);
});

test('the built app plays the HLS playlists in Chromium; rtp on the wire = the printed pace = the pace the origin applied', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const { watched } = await expectServedAppPlaysPaced(page, `${app!.dir}/dist`);
  const master = watched.requests.find((r) => r.path === DEFAULT_HLS_MASTER_PATH);
  expect(master?.cmcd.data, "the HLS playlist was loaded, with hls.js's CMCD").toMatchObject({ ot: 'm' });
});

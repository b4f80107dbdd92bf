/**
 * A user's Vite + TypeScript app, built from the packed tarballs alone: the root README's install
 * command (its tarball folder replaced by this repository's .cache/packages) in a fresh project
 * outside the repository, the README's dash.js snippet verbatim as src/main.ts. Strict `tsc` and
 * `vite build` pass, and the built app plays in Chromium against the reference origin, sending as
 * `rtp` the pace it decided, which the origin applies.
 */
import { expect, test } from '@playwright/test';
import { h2SpkiHash, trustingDevCertificate } from '../src/origin-env.js';
import { devCertificate } from '@sammy/origin-server';
import { expectServedAppPlaysPaced } from '../src/consumer/plays-paced.js';
import { entryPoints, installArgsFromReadme, packPackages, publishablePackages, tarballName } from '../src/consumer/packages.js';
import { createTempApp, isInstalledCopy, npmInstall, type TempApp } from '../src/consumer/temp-app.js';
import { readDashjsReadme, viteAppFiles } from '../src/consumer/vite-app.js';

/** The Node-only package; everything else is for the page. */
const SERVER_PACKAGE = 'sammy-pacing-express';

test.describe.configure({ mode: 'serial' });

test.use({ launchOptions: trustingDevCertificate() });

let app: TempApp | undefined;

test.beforeAll(async () => {
  test.setTimeout(300_000);
  const readme = await readDashjsReadme();
  expect(readme.cloneCommands.join('\n'), 'the README packs the packages the way this test does').toContain('npm run pack:packages');
  await packPackages();
  const installArgs = installArgsFromReadme(readme.appCommands);
  // Every entry point of the browser packages this README installs (the other players' adapters have their own tests).
  const browserEntryPoints = publishablePackages()
    .filter((p) => p.manifest.name !== SERVER_PACKAGE && installArgs.some((arg) => arg.endsWith(tarballName(p.manifest))))
    .flatMap((p) => entryPoints(p.manifest));
  expect(browserEntryPoints).toEqual(expect.arrayContaining(['sammy-pacing-dashjs', 'sammy-pacing-dashjs/pace-only', 'sammy-pacing-core']));
  app = await createTempApp('vite', viteAppFiles(readme.snippet, browserEntryPoints));
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

test('the same over HTTPS with HTTP/2: one connection, its pace never below a segment\'s rtp', async ({ page }) => {
  test.setTimeout(120_000);
  // The global setup's development certificate, which this file's Chromium trusts by its SPKI hash.
  const tls = await devCertificate();
  expect(tls.spkiHash, 'the certificate Chromium was told to trust').toBe(h2SpkiHash());
  await expectServedAppPlaysPaced(page, `${app!.dir}/dist`, { shared: true }, { tls });
});

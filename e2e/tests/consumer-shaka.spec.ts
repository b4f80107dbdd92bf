/**
 * A user's Vite + TypeScript app with Shaka Player, built from the packed tarballs alone:
 * docs/players.md's Shaka install command (its tarball folder replaced by this repository's .cache/packages)
 * in a fresh project outside the repository, the README's Shaka snippet verbatim as src/main.ts.
 * Strict `tsc` (the snippet, and the adapter's entry points without skipLibCheck) and `vite build`
 * pass, and the built app plays in Chromium against the reference origin, sending as `rtp` the pace
 * it printed, which the origin applies.
 */
import { expect, test } from '@playwright/test';
import { expectServedAppPlaysPaced } from '../src/consumer/plays-paced.js';
import { entryPoints, installArgsFromReadme, packPackages, publishablePackages } from '../src/consumer/packages.js';
import { createTempApp, isInstalledCopy, npmInstall, type TempApp } from '../src/consumer/temp-app.js';
import { viteAppFiles } from '../src/consumer/vite-app.js';
import { readShakaReadme } from '../src/shaka/consumer.js';

/** The packages a Shaka app installs from the README: their entry points are type-checked. */
const SHAKA_APP_PACKAGES = ['sammy-pacing-protocol', 'sammy-pacing-core', 'sammy-pacing-shaka'];

test.describe.configure({ mode: 'serial' });

let app: TempApp | undefined;

test.beforeAll(async () => {
  test.setTimeout(300_000);
  const readme = await readShakaReadme();
  await packPackages();
  const browserEntryPoints = publishablePackages()
    .filter((p) => SHAKA_APP_PACKAGES.includes(p.manifest.name))
    .flatMap((p) => entryPoints(p.manifest));
  expect(browserEntryPoints).toContain('sammy-pacing-shaka/pace-only');
  app = await createTempApp('vite-shaka', viteAppFiles(readme.snippet, browserEntryPoints));
  await npmInstall(app, installArgsFromReadme(readme.appCommands));
});

test.afterAll(async () => {
  await app?.remove();
});

test('the README install gives the app Shaka and the packed packages, and nothing of the server side', () => {
  for (const name of ['sammy-pacing-shaka', 'sammy-pacing-core', 'sammy-pacing-protocol', 'shaka-player']) {
    expect(isInstalledCopy(app!, name), `${name} installed into the app`).toBe(true);
  }
  for (const name of ['sammy-pacing-express', 'dashjs', 'koffi', 'express']) {
    expect(isInstalledCopy(app!, name), `${name} must not come with the Shaka app`).toBe(false);
  }
});

test('strict tsc passes on the README snippet and on the adapter’s entry points, and vite build succeeds', async () => {
  await app!.bin('tsc', []);
  await app!.bin('tsc', ['-p', 'types-check']);
  await app!.bin('vite', ['build']);
});

test('the built app plays in Chromium; rtp on the wire = the printed pace = the pace the origin applied', async ({ page }) => {
  test.setTimeout(120_000);
  await expectServedAppPlaysPaced(page, `${app!.dir}/dist`, { aborts: true });
});

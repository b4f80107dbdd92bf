/**
 * The oldest player each adapter says it works with. An adapter's peer range (`dashjs ^5.0.0`,
 * `shaka-player ^5.0.0`, `hls.js ^1.6.0`) lets npm install any player in it, and users pin older
 * players than the newest, which every other test uses. So for each adapter: the README's
 * install command (the root README's quick start for dash.js, docs/players.md for Shaka and hls.js) with the player pinned to the lowest version of that range, in a fresh project
 * outside the repository, the README's snippet verbatim as src/main.ts; strict `tsc` against that
 * player's types, `vite build`, and the built app plays in Chromium, sending as `rtp` the pace it
 * printed, which the origin applies; then the same in pace-only mode. A failure here means the peer
 * range claims too much.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { expectServedAppPlaysPaced, type PlaysPacedOptions } from '../src/consumer/plays-paced.js';
import {
  entryPoints,
  installArgsFromReadme,
  packPackages,
  peerFloor,
  pinInstallArg,
  publishablePackages,
  tarballName,
} from '../src/consumer/packages.js';
import { createTempApp, installedVersion, npmInstall, type TempApp } from '../src/consumer/temp-app.js';
import { readDashjsReadme, viteAppFiles } from '../src/consumer/vite-app.js';
import { readHlsjsReadme } from '../src/consumer/hlsjs-readme.js';
import { readShakaReadme } from '../src/shaka/consumer.js';

interface FloorApp {
  /** The player's npm package, as the README installs it. */
  player: string;
  adapter: string;
  readme: () => Promise<{ appCommands: string[]; snippet: string }>;
  plays?: PlaysPacedOptions;
}

const APPS: readonly FloorApp[] = [
  { player: 'dashjs', adapter: 'sammy-pacing-dashjs', readme: readDashjsReadme },
  // Shaka aborts a download in flight when it switches variants (as in consumer-shaka.spec.ts).
  { player: 'shaka-player', adapter: 'sammy-pacing-shaka', readme: readShakaReadme, plays: { aborts: true } },
  { player: 'hls.js', adapter: 'sammy-pacing-hlsjs', readme: readHlsjsReadme },
];

/**
 * The README snippet in pace-only mode: the player's own ABR picks, Sammy paces. Pace-only leans on
 * more of the player (its ABR's settings and rules) than Sammy's own choice does, so it is run at the
 * floor too: `attach(x)` becomes `attach(x, { mode: paceOnly })`, imported from `<adapter>/pace-only`.
 */
function paceOnlySnippet(snippet: string, adapter: string): string {
  const calls = [...snippet.matchAll(/(?<![.\w])attach\((\w+)\)/g)];
  expect(calls, 'one attach(player) call in the README snippet').toHaveLength(1);
  const adapterImport = new RegExp(`^import .* from '${adapter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}';$`, 'm');
  expect(snippet, `the snippet imports ${adapter}`).toMatch(adapterImport);
  const transformed = snippet
    .replace(calls[0]![0], `attach(${calls[0]![1]}, { mode: paceOnly })`)
    .replace(adapterImport, (line) => `${line}\nimport { paceOnly } from '${adapter}/pace-only';`);
  // The handle says which mode it runs in: printed, so the test sees pace-only really ran.
  return transformed + "\nconsole.log('mode: ' + sammy.mode);\n";
}

/**
 * `tsc -p types-check` checks the adapter's declarations without skipLibCheck, so it also checks the
 * player's own; an old player's declarations may not pass (dash.js 5.0.0's `export =` under ESM, its
 * `Buffer`). Those are the player's errors, which a user's app never sees (the template skips lib
 * checks): any error elsewhere, in the adapter's declarations above all, fails.
 */
async function typeCheckBesidesPlayer(app: TempApp, player: string): Promise<string[]> {
  try {
    await app.bin('tsc', ['-p', 'types-check']);
    return [];
  } catch (err) {
    const message = (err as Error).message;
    const errors = message.split('\n').filter((line) => /^\S+\(\d+,\d+\): error TS\d+/.test(line));
    if (errors.length === 0) throw err;
    const elsewhere = errors.filter((line) => !line.startsWith(`node_modules/${player}/`));
    expect(elsewhere, `type errors outside ${player}'s own declarations`).toEqual([]);
    return errors;
  }
}

for (const { player, adapter, readme, plays } of APPS) {
  test.describe(`${adapter} with the oldest ${player} its peer range accepts`, () => {
    test.describe.configure({ mode: 'serial' });
    let app: TempApp | undefined;
    let floor = '';
    let snippet = '';

    test.beforeAll(async () => {
      test.setTimeout(300_000);
      const packages = publishablePackages();
      const adapterPackage = packages.find((p) => p.manifest.name === adapter);
      expect(adapterPackage, `${adapter} is a publishable workspace`).toBeDefined();
      floor = peerFloor(adapterPackage!.manifest, player);
      const instructions = await readme();
      const { appCommands } = instructions;
      snippet = instructions.snippet;
      await packPackages();
      const args = installArgsFromReadme(appCommands);
      const browserEntryPoints = packages
        .filter((p) => args.some((arg) => arg.endsWith(`/${tarballName(p.manifest)}`)))
        .flatMap((p) => entryPoints(p.manifest));
      expect(browserEntryPoints).toContain(adapter);
      app = await createTempApp(`floor-${player.replace(/\W+/g, '')}`, viteAppFiles(snippet, browserEntryPoints));
      await npmInstall(app, pinInstallArg(args, player, floor));
    });

    test.afterAll(async () => {
      await app?.remove();
    });

    test(`the app has ${player} at the floor of the peer range`, () => {
      expect(installedVersion(app!, player)).toBe(floor);
    });

    test('strict tsc passes on the README snippet and the entry points against that player, and vite build succeeds', async () => {
      await app!.bin('tsc', []);
      const playerErrors = await typeCheckBesidesPlayer(app!, player);
      if (playerErrors.length > 0)
        test.info().annotations.push({ type: `${player}@${floor}'s own type errors`, description: playerErrors.join('\n') });
      await app!.bin('vite', ['build']);
    });

    test('the built app plays in Chromium; rtp on the wire = the printed pace = the pace the origin applied', async ({ page }) => {
      test.setTimeout(120_000);
      await expectServedAppPlaysPaced(page, `${app!.dir}/dist`, plays);
    });

    test('in pace-only mode too: strict tsc, vite build, and the app plays paced', async ({ page }) => {
      test.setTimeout(120_000);
      writeFileSync(join(app!.dir, 'src', 'main.ts'), paceOnlySnippet(snippet, adapter));
      await app!.bin('tsc', []);
      await app!.bin('vite', ['build', '--outDir', 'dist-pace-only']);
      const { printed } = await expectServedAppPlaysPaced(page, `${app!.dir}/dist-pace-only`, plays);
      expect(printed, 'the handle printed its mode').toContain('mode: pace-only');
    });
  });
}

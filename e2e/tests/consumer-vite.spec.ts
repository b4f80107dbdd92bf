/**
 * A user's Vite + TypeScript app, built from the packed tarballs alone: the root README's install
 * command (its tarball folder replaced by this repository's .cache/packages) in a fresh project
 * outside the repository, the README's dash.js snippet verbatim as src/main.ts. Strict `tsc` and
 * `vite build` pass, and the built app plays in Chromium against the reference origin, sending as
 * `rtp` the pace it decided, which the origin applies.
 */
import { expect, test, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '@sammy/chromium';
import { H2_SPKI_ENV, h2SpkiHash } from '../src/origin-env.js';
import { parseServerTiming, type PacingReport } from 'sammy-pacing-protocol';
import { devCertificate, startOrigin, type RunningOrigin } from '@sammy/origin-server';
import { entryPoints, installArgsFromReadme, packPackages, publishablePackages, tarballName } from '../src/consumer/packages.js';
import { createTempApp, isInstalledCopy, npmInstall, type TempApp } from '../src/consumer/temp-app.js';
import { readDashjsReadme, viteAppFiles } from '../src/consumer/vite-app.js';
import { cmcdProblems, watchPage } from '../src/session.js';

/** The Node-only package; everything else is for the page. */
const SERVER_PACKAGE = 'sammy-pacing-express';

/** What the snippet's decision listener prints: `${phase}: ${bitrate} kbps, pace ${pace ?? 'none'} kbps`. */
const DECISION_LINE = /^(initial|playing): (\d+(?:\.\d+)?) kbps, pace (none|\d+) kbps$/;

test.describe.configure({ mode: 'serial' });

/** Chromium trusts the global setup's development certificate by its SPKI hash (see demo-h2.spec.ts), nothing else. */
test.use({
  launchOptions: {
    executablePath: findChromium(),
    args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${process.env[H2_SPKI_ENV] ?? ''}`],
  },
});

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

/**
 * Plays the built app from `origin` and checks every segment: none paced before playback, then the
 * printed pace on the wire and applied by the kernel. On HTTP/2 (`shared`) the connection's pace covers
 * every stream: a request that arrives while another response is still sending may find it kept or raised
 * (sammy-conn), never lower than its own rtp; and every media request must have gone over h2.
 */
async function playsPaced(page: Page, origin: RunningOrigin, shared: boolean): Promise<void> {
  const lines: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'log') lines.push(m.text());
  });
  const reports = new Map<string, Promise<PacingReport>>();
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/media/')) {
      reports.set(response.url(), response.allHeaders().then((h) => parseServerTiming(h['server-timing'] ?? '')));
    }
  });
  const watched = await watchPage(page, { demoHook: false });
  await page.goto(`${origin.url}/`);
  const video = page.locator('video');
  await expect(video).toHaveCount(1);
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 30_000 }).toBeGreaterThan(2);
  const playingAt = (await watched.log()).playingAt;
  expect(playingAt).toBeDefined();
  // Some segment requests after playback started, paced or not (a missing rtp must fail below, not time out).
  await expect.poll(() => watched.requests.filter((r) => r.isSegment && r.time > playingAt! + 200).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);

  const segments = watched.requests.filter((r) => r.isSegment);
  const decisions = lines.filter((l) => DECISION_LINE.test(l)).map((l) => DECISION_LINE.exec(l)!);
  // One printed decision per media segment request, in order (both come from the same interceptor call).
  expect(decisions.length).toBeGreaterThanOrEqual(segments.length);
  expect(cmcdProblems(watched.requests), 'malformed CMCD').toEqual([]);
  let paced = 0;
  for (const [i, request] of segments.entries()) {
    const [, phase, , pace] = decisions[i]!;
    // The newest segments may still be downloading (a paced one takes seconds): wait for their responses.
    await expect.poll(() => reports.has(request.url), { message: `a response for ${request.path}`, timeout: 30_000 }).toBe(true);
    const report = await reports.get(request.url);
    expect(report, `a response for ${request.path}`).toBeDefined();
    if (phase === 'initial') {
      expect(request.rtp, `rtp on ${request.path} in the initial phase`).toBeUndefined();
      if (!shared) expect(report!.mechanism, `${request.path} unpaced`).toBe('none');
    } else {
      expect(request.rtp, `rtp on ${request.path}: the printed pace`).toBe(Number(pace));
      expect(report!.requestedRtpKbps, `Server-Timing rtp of ${request.path}`).toBe(request.rtp);
      if (shared && report!.sharedConnection?.reason !== 'own') {
        expect(report!.appliedPaceKbps, `connection pace kept or raised for ${request.path}`).toBeGreaterThanOrEqual(request.rtp!);
      } else {
        expect(report!.appliedPaceKbps, `Server-Timing applied pace of ${request.path}`).toBe(request.rtp);
      }
      expect(report!.mechanism, `${request.path} paced by the kernel`).toBe('kernel');
      paced++;
    }
  }
  expect(decisions.some(([, phase]) => phase === 'initial'), 'an initial-phase decision was printed').toBe(true);
  expect(paced, 'paced playing-phase segment requests').toBeGreaterThanOrEqual(3);
  if (shared) {
    const protocols = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((e) => new URL(e.name).pathname.startsWith('/media/'))
        .map((e) => (e as PerformanceResourceTiming).nextHopProtocol),
    );
    expect(protocols.length).toBeGreaterThan(0);
    expect(new Set(protocols), 'every media request over HTTP/2').toEqual(new Set(['h2']));
  }
  expect(watched.consoleErrors).toEqual([]);
}

test('the built app plays in Chromium; rtp on the wire = the printed pace = the pace the origin applied', async ({ page }) => {
  test.setTimeout(120_000);
  // The app's dist as the site, the test ladder at /media/ (the snippet's manifest path).
  const origin = await startOrigin({ port: 0, host: '127.0.0.1', siteDir: `${app!.dir}/dist`, congestionControl: 'cubic' });
  try {
    await playsPaced(page, origin, false);
  } finally {
    await origin.close();
  }
});

test('the same over HTTPS with HTTP/2: one connection, its pace never below a segment\'s rtp', async ({ page }) => {
  test.setTimeout(120_000);
  // The global setup's development certificate, which this file's Chromium trusts by its SPKI hash.
  const tls = await devCertificate();
  expect(tls.spkiHash, 'the certificate Chromium was told to trust').toBe(h2SpkiHash());
  const origin = await startOrigin({ port: 0, host: '127.0.0.1', siteDir: `${app!.dir}/dist`, congestionControl: 'cubic', tls });
  try {
    await playsPaced(page, origin, true);
  } finally {
    await origin.close();
  }
});

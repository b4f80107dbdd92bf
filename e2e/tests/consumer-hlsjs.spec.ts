/**
 * A user's Vite + TypeScript app with hls.js, built from the packed tarballs alone: the root
 * README's hls.js install command (its tarball folder replaced by this repository's
 * .cache/packages) in a fresh project outside the repository, the README's hls.js snippet verbatim
 * as src/main.ts. Strict `tsc` and `vite build` pass, and the built app plays the HLS playlists in
 * Chromium against the reference origin, sending as `rtp` the pace it printed, which the origin
 * applies; none before playback starts.
 */
import { expect, test } from '@playwright/test';
import { parseServerTiming, type PacingReport } from 'sammy-pacing-protocol';
import { startOrigin, type RunningOrigin } from '@sammy/origin-server';
import { readHlsjsReadme } from '../src/consumer/hlsjs-readme.js';
import { entryPoints, installArgsFromReadme, packPackages, publishablePackages } from '../src/consumer/packages.js';
import { createTempApp, isInstalledCopy, npmInstall, type TempApp } from '../src/consumer/temp-app.js';
import { viteAppFiles } from '../src/consumer/vite-app.js';
import { cmcdProblems, watchPage } from '../src/session.js';

/** What the snippet's decision listener prints: `${phase}: ${bitrate} kbps, pace ${pace ?? 'none'} kbps`. */
const DECISION_LINE = /^(initial|playing): (\d+(?:\.\d+)?) kbps, pace (none|\d+) kbps$/;

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

test('the built app plays the HLS playlists in Chromium; rtp on the wire = the printed pace = the pace the origin applied', async ({ page }) => {
  test.setTimeout(120_000);
  let origin: RunningOrigin | undefined;
  try {
    origin = await startOrigin({ port: 0, host: '127.0.0.1', siteDir: `${app!.dir}/dist`, congestionControl: 'cubic' });
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
    await expect.poll(() => watched.requests.filter((r) => r.isSegment && r.time > playingAt! + 200).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);

    const master = watched.requests.find((r) => r.path === '/media/default/master.m3u8');
    expect(master?.cmcd.data, 'the HLS playlist was loaded, with hls.js\'s CMCD').toMatchObject({ ot: 'm' });
    const segments = watched.requests.filter((r) => r.isSegment);
    const decisions = lines.filter((l) => DECISION_LINE.test(l)).map((l) => DECISION_LINE.exec(l)!);
    // One printed decision per media segment request, in order (both come from the same loader call).
    expect(decisions.length).toBeGreaterThanOrEqual(segments.length);
    expect(cmcdProblems(watched.requests), 'malformed CMCD').toEqual([]);
    let paced = 0;
    for (const [i, request] of segments.entries()) {
      const [, phase, , pace] = decisions[i]!;
      await expect.poll(() => reports.has(request.url), { message: `a response for ${request.path}`, timeout: 30_000 }).toBe(true);
      const report = await reports.get(request.url);
      expect(report, `a response for ${request.path}`).toBeDefined();
      if (phase === 'initial') {
        expect(request.rtp, `rtp on ${request.path} in the initial phase`).toBeUndefined();
        expect(report!.mechanism, `${request.path} unpaced`).toBe('none');
      } else {
        expect(request.rtp, `rtp on ${request.path}: the printed pace`).toBe(Number(pace));
        expect(report!.requestedRtpKbps, `Server-Timing rtp of ${request.path}`).toBe(request.rtp);
        expect(report!.appliedPaceKbps, `Server-Timing applied pace of ${request.path}`).toBe(request.rtp);
        expect(report!.mechanism, `${request.path} paced by the kernel`).toBe('kernel');
        paced++;
      }
    }
    expect(decisions.some(([, phase]) => phase === 'initial'), 'an initial-phase decision was printed').toBe(true);
    expect(paced, 'paced playing-phase segment requests').toBeGreaterThanOrEqual(3);
    expect(watched.consoleErrors).toEqual([]);
  } finally {
    await origin?.close();
  }
});

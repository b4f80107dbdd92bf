/**
 * A user's Vite + TypeScript app with Shaka Player, built from the packed tarballs alone: the root
 * README's Shaka install command (its tarball folder replaced by this repository's .cache/packages)
 * in a fresh project outside the repository, the README's Shaka snippet verbatim as src/main.ts.
 * Strict `tsc` (the snippet, and the adapter's entry points without skipLibCheck) and `vite build`
 * pass, and the built app plays in Chromium against the reference origin, sending as `rtp` the pace
 * it printed, which the origin applies.
 */
import { expect, test } from '@playwright/test';
import { startOrigin, type RunningOrigin } from '@sammy/origin-server';
import { clampPaceKbps } from 'sammy-pacing-protocol';
import { entryPoints, installArgsFromReadme, packPackages, publishablePackages } from '../src/consumer/packages.js';
import { createTempApp, isInstalledCopy, npmInstall, type TempApp } from '../src/consumer/temp-app.js';
import { viteAppFiles } from '../src/consumer/vite-app.js';
import { readShakaReadme } from '../src/shaka/consumer.js';
import { cmcdProblems, watchPage } from '../src/session.js';

/** The packages a Shaka app installs from the README: their entry points are type-checked. */
const SHAKA_APP_PACKAGES = ['sammy-pacing-protocol', 'sammy-pacing-core', 'sammy-pacing-shaka'];

/** What the snippet's decision listener prints: `${phase}: ${bitrate} kbps, pace ${pace ?? 'none'} kbps`. */
const DECISION_LINE = /^(initial|playing): (\d+(?:\.\d+)?) kbps, pace (none|\d+) kbps$/;

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
  let origin: RunningOrigin | undefined;
  try {
    origin = await startOrigin({ port: 0, host: '127.0.0.1', siteDir: `${app!.dir}/dist`, congestionControl: 'cubic' });
    const lines: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'log') lines.push(m.text());
    });
    const watched = await watchPage(page, { demoHook: false });
    await page.goto(`${origin.url}/`);
    const video = page.locator('video');
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 30_000 }).toBeGreaterThan(2);
    const playingAt = (await watched.log()).playingAt;
    expect(playingAt).toBeDefined();
    await expect.poll(() => watched.requests.filter((r) => r.isSegment && r.time > playingAt! + 200).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    // Every segment request has finished (its Server-Timing read), so each has its printed decision.
    await expect.poll(() => watched.requests.filter((r) => r.isSegment && r.outcome === 'pending').length, { timeout: 30_000 }).toBe(0);

    const segments = watched.requests.filter((r) => r.isSegment);
    const decisions = lines.filter((l) => DECISION_LINE.test(l)).map((l) => DECISION_LINE.exec(l)!);
    // One printed decision per media segment request, in order (both come from the same request filter call).
    expect(decisions.length).toBeGreaterThanOrEqual(segments.length);
    expect(cmcdProblems(watched.requests), 'malformed CMCD').toEqual([]);
    let paced = 0;
    const aborted: string[] = [];
    for (const [i, request] of segments.entries()) {
      const [, phase, , pace] = decisions[i]!;
      // Shaka aborts a download in flight when it switches variants (StreamingEngine): no response to read.
      const report = request.serverTiming;
      if (request.outcome === 'failed') aborted.push(`${request.path} (${decisions[i]![0]})`);
      if (phase === 'initial') {
        expect(request.rtp, `rtp on ${request.path} in the initial phase`).toBeUndefined();
        if (report) expect(report.mechanism, `${request.path} unpaced`).toBe('none');
      } else {
        expect(request.rtp, `rtp on ${request.path}: the printed pace`).toBe(Number(pace));
        if (!report) continue;
        expect(report.requestedRtpKbps, `Server-Timing rtp of ${request.path}`).toBe(request.rtp);
        // The origin raises an rtp below its floor (1024 kbps) to it.
        expect(report.appliedPaceKbps, `Server-Timing applied pace of ${request.path}`).toBe(clampPaceKbps(request.rtp!));
        expect(report.mechanism, `${request.path} paced by the kernel`).toBe('kernel');
        paced++;
      }
    }
    test.info().annotations.push({ type: 'decisions', description: decisions.map(([line]) => line).join('; ') });
    if (aborted.length > 0) test.info().annotations.push({ type: 'aborted by Shaka', description: aborted.join('; ') });
    expect(decisions.some(([, phase]) => phase === 'initial'), 'an initial-phase decision was printed').toBe(true);
    expect(paced, 'paced playing-phase segment requests').toBeGreaterThanOrEqual(3);
    expect(watched.consoleErrors).toEqual([]);
  } finally {
    await origin?.close();
  }
});

/**
 * The README's "Use it in your dash.js player" snippet, as printed: extracted from README.md now,
 * bundled by Vite with the workspace's dashjs and sammy-pacing-dashjs, on a bare page (no demo UI)
 * served by an origin that also serves the media, so '/media/default/manifest.mpd' resolves.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startOrigin, type RunningOrigin } from '@sammy/origin-server';
import { buildSnippetApp, readReadmeSnippet } from '../src/snippet.js';
import { cmcdProblems, watchPage } from '../src/session.js';

/** What the snippet's decision listener prints: `${phase}: ${bitrate} kbps, pace ${pace ?? 'none'} kbps`. */
const DECISION_LINE = /^(initial|playing): (\d+(?:\.\d+)?) kbps, pace (none|\d+) kbps$/;

test('the README snippet works as printed on a bare page: it plays, and rtp follows the logged pace', async ({ page }) => {
  test.setTimeout(120_000);
  const snippet = await readReadmeSnippet();
  // Guard against extracting the wrong block (e.g. the `npm install` one).
  expect(snippet).toContain('attach(player');
  expect(snippet).toContain("'/media/default/manifest.mpd'");
  const work = await mkdtemp(join(tmpdir(), 'sammy-e2e-snippet-'));
  let origin: RunningOrigin | undefined;
  try {
    await buildSnippetApp(snippet, join(work, 'src'), join(work, 'dist'));
    origin = await startOrigin({ port: 0, host: '127.0.0.1', siteDir: join(work, 'dist'), congestionControl: 'cubic' });
    const lines: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'log') lines.push(m.text());
    });
    const watched = await watchPage(page, { demoHook: false });
    await page.goto(`${origin.url}/`);
    // Only the snippet's markup: no demo UI.
    await expect(page.locator('video')).toHaveCount(1);
    await expect(page.locator('#settings')).toHaveCount(0);
    const video = page.locator('video');
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 30_000 }).toBeGreaterThan(2);
    const playingAt = (await watched.log()).playingAt;
    expect(playingAt).toBeDefined();
    // Some segment requests after playback started, paced or not (a missing rtp must fail below, not time out).
    await expect.poll(() => watched.requests.filter((r) => r.isSegment && r.time > playingAt! + 200).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);

    const requests = [...watched.requests];
    const decisions = lines.filter((l) => DECISION_LINE.test(l)).map((l) => DECISION_LINE.exec(l)!);
    const segments = requests.filter((r) => r.isSegment);
    // One printed decision per media segment request, in order (both come from the same interceptor call).
    expect(decisions.length).toBeGreaterThanOrEqual(segments.length);
    expect(cmcdProblems(requests), 'malformed CMCD').toEqual([]);
    segments.forEach((request, i) => {
      const [, phase, , pace] = decisions[i]!;
      if (phase === 'initial') expect(request.rtp, `rtp on ${request.path} in the initial phase`).toBeUndefined();
      else expect(request.rtp, `rtp on ${request.path}: the logged pace`).toBe(Number(pace));
    });
    expect(decisions.some(([, phase]) => phase === 'initial'), 'an initial-phase decision was printed').toBe(true);
    expect(decisions.some(([, phase, , pace]) => phase === 'playing' && pace !== 'none'), 'a paced playing-phase decision was printed').toBe(true);
    expect(watched.consoleErrors).toEqual([]);
  } finally {
    await origin?.close();
    await rm(work, { recursive: true, force: true });
  }
});

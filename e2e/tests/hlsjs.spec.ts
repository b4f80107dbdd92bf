/**
 * hls.js + sammy-pacing-hlsjs in Chromium against the real origin, playing the HLS playlists of the
 * test ladder (the same CMAF segments as the DASH manifest): it plays; `rtp` on the wire is the pace
 * the adapter reported for that segment once playback started and absent before; the origin paces
 * each response at it; hls.js's own CMCD (v1 or v2, query or headers) keeps its keys with the right
 * object types, and its own v2 `rtp` never reaches the origin.
 */
import { expect, test, type Page } from '@playwright/test';
import { expectRtpFollowsPlayback, pairRequests, waitForPlayingVideoSegments } from '../src/demo-page.js';
import {
  expectOriginPacedAtRtp,
  HLSJS_V2_INIT_DURATION,
  objectTypeProblems,
  openHlsPage,
  waitForLargePacedVideo,
  type HlsPageOptions,
} from '../src/hls-page.js';
import { cmcdProblems } from '../src/session.js';

const PACED_VIDEO_SEGMENTS = 6;

async function expectPacedSession(page: Page, options: HlsPageOptions): Promise<void> {
  const mode = options.cmcd ?? 'query';
  const watched = await openHlsPage(page, options);
  await waitForPlayingVideoSegments(page, PACED_VIDEO_SEGMENTS);
  await waitForLargePacedVideo(page, 3);
  const requests = [...watched.requests];
  const log = await watched.log();
  expect(log.playerErrors).toEqual([]);
  expect(log.playingAt).toBeDefined();
  const problems = cmcdProblems(requests);
  const known = problems.filter(
    (p) =>
      options.version === 2 && /\/init-\d+\.m4s/.test(p) && HLSJS_V2_INIT_DURATION.test(p) && !/rtp/.test(p.split(': ').slice(1).join()),
  );
  if (known.length > 0)
    test.info().annotations.push({ type: 'hls.js v2: d on init segments', description: `${known.length} init segment requests` });
  expect(
    problems.filter((p) => !known.includes(p)),
    'malformed CMCD',
  ).toEqual([]);
  expect(objectTypeProblems(requests), 'CMCD object types').toEqual([]);
  for (const r of requests) {
    expect([r.cmcdInQuery, r.cmcdInHeaders], `CMCD transport of ${r.url}`).toEqual(mode === 'query' ? [true, false] : [false, true]);
    if (mode === 'header' && r.rtp !== undefined) expect(r.headers['cmcd-status'], `CMCD-Status of ${r.url}`).toContain(`rtp=${r.rtp}`);
    if (!r.isSegment) expect(r.rtp, `rtp on ${r.path} (playlist or init segment)`).toBeUndefined();
    if (options.version === 2) expect((r.cmcd.data as { v?: unknown }).v, `CMCD version of ${r.path}`).toBe(2);
  }
  const { paced } = expectRtpFollowsPlayback(pairRequests(requests, log), log);
  expect(paced.filter((p) => p.decision.mediaType === 'video').length).toBeGreaterThanOrEqual(PACED_VIDEO_SEGMENTS);
  expect(
    paced.some((p) => p.decision.mediaType === 'audio'),
    'paced audio segments',
  ).toBe(true);
  await expectOriginPacedAtRtp(
    paced.map((p) => p.request),
    log.samples,
  );
  expect(watched.consoleErrors).toEqual([]);
}

test('hls.js + Sammy plays the HLS playlists: currentTime advances, no fatal error, no console error', async ({ page }) => {
  const watched = await openHlsPage(page);
  const video = page.locator('video#video');
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 30_000 }).toBeGreaterThan(1);
  const first = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(first + 2);
  expect(await video.evaluate((v: HTMLVideoElement) => ({ paused: v.paused, error: v.error?.message ?? null }))).toEqual({
    paused: false,
    error: null,
  });
  const master = watched.requests.find((r) => r.path.endsWith('/master.m3u8'));
  expect(master?.cmcd.data, 'CMCD of the multivariant playlist request').toMatchObject({ ot: 'm' });
  expect((await watched.log()).playerErrors).toEqual([]);
  expect(watched.consoleErrors).toEqual([]);
});

test('query mode (CMCD v1): rtp = the reported pace on every segment once playing, none before; the origin paces at it', async ({
  page,
}) => {
  await expectPacedSession(page, { cmcd: 'query' });
});

test('header mode (cmcd.useHeaders): rtp in CMCD-Status, the same pace, paced by the origin', async ({ page }) => {
  await expectPacedSession(page, { cmcd: 'header' });
});

test('CMCD v2: hls.js’s own rtp (5 × the level bitrate) never leaks — none before playback, Sammy’s after', async ({ page }) => {
  await expectPacedSession(page, { cmcd: 'query', version: 2 });
});

test('pace-only mode: hls.js’s own ABR picks, Sammy paces every segment once playing', async ({ page }) => {
  await expectPacedSession(page, { mode: 'pace-only' });
});

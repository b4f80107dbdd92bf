/**
 * Shaka Player 5 with sammy-pacing-shaka against the reference origin, in Chromium: a small page
 * built with Vite (src/shaka/page.ts) plays the DASH test ladder with Shaka's own CMCD on, every
 * key, its own `rtp` included. Asserted: it plays; before playback starts no segment request
 * carries `rtp`; after, every one carries exactly the pace the adapter reported for it (Shaka's
 * own `rtp` never leaks: every `rtp` on the wire is one of ours); the origin applies it
 * (Server-Timing `sammy-pace`) and its delivery record, found by `sammy-id`, shows the response
 * delivered at that pace. Query mode, header mode (`cmcd.useHeaders`: rtp in CMCD-Status), and
 * pace-only mode (Shaka's own SimpleAbrManager choosing).
 */
import { expect, test, type Page } from '@playwright/test';
import { startOrigin, type RunningOrigin } from '@sammy/origin-server';
import { clampPaceKbps, type DeliveryRecord } from 'sammy-pacing-protocol';
import { expectRtpFollowsPlayback, pairRequests, waitForPlayingVideoSegments, type Paired } from '../src/demo-page.js';
import { cmcdProblems, recordsOfResponses, watchPage, type CapturedRequest, type WatchedPage } from '../src/session.js';
import { buildShakaPage } from '../src/shaka/page.js';

/** ±15 %: kernel pacing lets the first congestion window out unpaced, and the record's clock ends at the last ACK. */
const PACE_TOLERANCE = 0.15;
/** Responses whose send at the pace takes at least this long are checked against it (the unpaced first window then weighs little). */
const MIN_PACED_SEND_MS = 1000;
/** Playing-phase video segments to wait for: Shaka's buffering goal (10 s) then asks for one every 4 s. */
const PACED_VIDEO_SEGMENTS = 4;

test.describe.configure({ mode: 'serial' });

let site: string;
let origin: RunningOrigin | undefined;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  site = await buildShakaPage();
  // The page and the ladder from one origin of this spec's own (the page is not the demo site).
  origin = await startOrigin({ port: 0, host: '127.0.0.1', siteDir: site, congestionControl: 'cubic' });
});

test.afterAll(async () => {
  await origin?.close();
});

async function open(page: Page, query: string): Promise<WatchedPage> {
  const watched = await watchPage(page, { demoHook: false });
  await page.goto(`${origin!.url}/?${query}`);
  return watched;
}

/** The origin's delivery record of each of these responses, by the id its Server-Timing carried. */
async function recordsFor(requests: readonly CapturedRequest[]): Promise<Map<CapturedRequest, DeliveryRecord>> {
  return (await recordsOfResponses(requests, origin!.url, { idOnEvery: false })).byRequest;
}

async function expectPacedSession(
  page: Page,
  query: string,
  mode: 'query' | 'header',
  videoSegments = PACED_VIDEO_SEGMENTS,
): Promise<Paired[]> {
  const watched = await open(page, query);
  const video = page.locator('video');
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 30_000 }).toBeGreaterThan(1);
  await waitForPlayingVideoSegments(page, videoSegments);
  // Requests first: each one's decision was emitted before it left, so it is in the later log.
  const requests = [...watched.requests];
  const log = await watched.log();
  expect(log.playerErrors).toEqual([]);
  expect(cmcdProblems(requests), 'malformed CMCD').toEqual([]);

  const segments = requests.filter((r) => r.isSegment);
  for (const r of segments) {
    // Shaka's own CMCD is on (its keys are there), in one transport per mode.
    expect([r.cmcdInQuery, r.cmcdInHeaders], `CMCD transport of ${r.url}`).toEqual(mode === 'query' ? [true, false] : [false, true]);
    expect(r.cmcd.data?.sid, `Shaka's session id on ${r.path}`).toBeTruthy();
    if (mode === 'header' && r.rtp !== undefined) expect(r.headers['cmcd-status'], `CMCD-Status of ${r.url}`).toContain(`rtp=${r.rtp}`);
  }
  // Manifest and init segments never carry rtp.
  for (const r of requests.filter((r) => !r.isSegment)) expect(r.rtp, `rtp on ${r.path}`).toBeUndefined();

  const paired = pairRequests(requests, log);
  const { paced: after } = expectRtpFollowsPlayback(paired, log);
  // Shaka's own rtp never leaks: every rtp on the wire is the pace the adapter reported for that request.
  for (const { request, decision } of paired) expect(request.rtp, `rtp on ${request.path}`).toBe(decision.paceRateKbps);
  const paced = after.filter((p) => p.decision.mediaType === 'video');
  expect(paced.length, 'paced playing-phase video segments').toBeGreaterThanOrEqual(videoSegments);

  // The origin applied each rtp (Server-Timing) and delivered the large responses at it (its records).
  const finished = after.map((p) => p.request).filter((r) => r.outcome === 'finished');
  for (const r of finished) {
    expect(r.serverTiming?.requestedRtpKbps, `Server-Timing sammy-rtp of ${r.path}`).toBe(r.rtp);
    // The origin raises an rtp below its floor (1024 kbps) to it.
    expect(r.serverTiming?.appliedPaceKbps, `Server-Timing sammy-pace of ${r.path}`).toBe(clampPaceKbps(r.rtp!));
    expect(r.serverTiming?.mechanism, `${r.path} paced by the kernel`).toBe('kernel');
  }
  const records = await recordsFor(finished);
  const large: string[] = [];
  for (const [request, record] of records) {
    expect(record.requestedRtpKbps, `requestedRtpKbps of ${request.path}`).toBe(request.rtp);
    expect(record.appliedPaceKbps, `appliedPaceKbps of ${request.path}`).toBe(clampPaceKbps(request.rtp!));
    expect(record.mechanism).toBe('kernel');
    if ((record.bytes * 8) / request.rtp! < MIN_PACED_SEND_MS) continue;
    large.push(`${request.path}: ${record.bytes} B, achieved ${Math.round(record.achievedKbps ?? NaN)} of ${request.rtp} kbps`);
    expect((record.achievedKbps ?? NaN) / request.rtp!, `achieved/requested for ${large.at(-1)}`).toBeGreaterThanOrEqual(
      1 - PACE_TOLERANCE,
    );
    expect((record.achievedKbps ?? NaN) / request.rtp!, `achieved/requested for ${large.at(-1)}`).toBeLessThanOrEqual(1 + PACE_TOLERANCE);
  }
  test.info().annotations.push({ type: 'paced responses checked', description: large.join('; ') });
  const rungs = after.filter((p) => p.decision.mediaType === 'video').map((p) => `${p.decision.bitrateKbps}@${p.request.rtp}`);
  expect(large.length, `paced responses large enough to measure; playing-phase video kbps@rtp: ${rungs.join(' ')}`).toBeGreaterThanOrEqual(
    1,
  );
  expect(watched.consoleErrors).toEqual([]);
  return paired;
}

test('Shaka + Sammy plays: currentTime advances, no player error, no console error', async ({ page }) => {
  const watched = await open(page, '');
  const video = page.locator('video');
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 30_000 }).toBeGreaterThan(1);
  const first = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(first + 2);
  expect(await video.evaluate((v: HTMLVideoElement) => ({ paused: v.paused, error: v.error?.message ?? null }))).toEqual({
    paused: false,
    error: null,
  });
  expect((await watched.log()).playerErrors).toEqual([]);
  expect(watched.consoleErrors).toEqual([]);
});

test('without the adapter, Shaka’s own CMCD sends an rtp of its own on media segments: what the adapter replaces', async ({ page }) => {
  const watched = await open(page, 'sammy=none');
  const video = page.locator('video');
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 30_000 }).toBeGreaterThan(1);
  await expect
    .poll(() => watched.requests.filter((r) => r.isSegment && r.rtp !== undefined).length, { timeout: 30_000 })
    .toBeGreaterThanOrEqual(2);
  expect(watched.consoleErrors).toEqual([]);
});

test('query mode: rtp = the reported pace on every segment once playing, none before, never Shaka’s own; the origin paces at it', async ({
  page,
}) => {
  const paired = await expectPacedSession(page, '', 'query');
  // The ladder's top stays the whole ladder's (6000 kbps), even while Shaka bans a variant (its
  // dropped-frames check on a loaded machine), so the pace leaves the way back up open.
  for (const { decision } of paired.filter((p) => p.decision.phase === 'playing')) expect(decision.topVideoBitrateKbps).toBe(6000);
});

test('header mode (cmcd.useHeaders): rtp in CMCD-Status, the same guarantees', async ({ page }) => {
  await expectPacedSession(page, 'cmcd=header', 'header');
});

test('pace-only mode: Shaka’s SimpleAbrManager chooses, Sammy paces with the same guarantees', async ({ page }) => {
  // Shaka's own ABR starts low (its 1 Mbps default estimate) and switches at most every 8 s: wait
  // for the top rung's segments, large enough to check the origin's pace on.
  await expectPacedSession(page, 'mode=pace-only', 'query', 7);
});

/**
 * The demo page against the real origin: dash.js + the Sammy plugin in Chromium, CMCD `rtp` on the
 * wire, kernel pacing on the origin's sockets, the origin's delivery records, and the graphs.
 */
import { expect, test, type Page } from '@playwright/test';
import type { DeliveryRecord } from 'sammy-pacing-protocol';
import { originUrl } from '../src/origin-env.js';
import {
  expectGraphs,
  expectRtpFollowsPlayback,
  openDemo,
  pairRequests,
  waitForPlayingVideoSegments,
  type Paired,
} from '../src/demo-page.js';
import { cmcdProblems, median, recordsOfResponses, watchPage, type CapturedRequest, type PageLog } from '../src/session.js';

/** ±15 %: kernel pacing lets the first congestion window out unpaced, and the record's clock ends at the last ACK. */
const PACE_TOLERANCE = 0.15;
/**
 * A response is "large enough to be paced meaningfully" when sending it at the requested rate
 * takes at least this long: the unpaced first window (~10 segments) then weighs little. At the
 * demo's ~18-20 Mbps pace that is ≥ ~2.3 MB, i.e. the 6 Mbps rung's 4 s segments (~3 MB).
 */
const MIN_PACED_SEND_MS = 1000;
const PACED_VIDEO_SEGMENTS = 6;
/** Paced responses at least MIN_PACED_SEND_MS long whose records are held to their pace. */
const LARGE_PACED_SEGMENTS = 3;

/** The origin's delivery record of each of these requests, by the id its response carried. */
async function recordsFor(requests: readonly CapturedRequest[]): Promise<Map<CapturedRequest, DeliveryRecord>> {
  return (await recordsOfResponses(requests, originUrl())).byRequest;
}

/** The origin paced each large paced response at the rtp it carried, within ±15 %. */
async function expectRecordsMatchPace(paced: readonly Paired[], samples: PageLog['samples']): Promise<void> {
  const records = await recordsFor(paced.filter((p) => p.request.rtp !== undefined).map((p) => p.request));
  const large: string[] = [];
  for (const [request, record] of records) {
    expect(record.requestedRtpKbps, `requestedRtpKbps of ${request.path}`).toBe(request.rtp);
    expect(record.mechanism).toBe('kernel');
    expect(record.aborted).toBe(false);
    const sendMs = (record.bytes * 8) / request.rtp!;
    if (sendMs < MIN_PACED_SEND_MS) continue;
    // What the page measured for the same response tells a slow browser (CPU-starved) from a slow origin.
    const inPage = samples.find((s) => new URL(s.url).pathname === request.path)?.throughputKbps;
    large.push(
      `${request.path}: ${record.bytes} B, achieved ${Math.round(record.achievedKbps ?? NaN)} of ${request.rtp} kbps (page measured ${inPage === undefined ? '?' : Math.round(inPage)} kbps)`,
    );
    expect((record.achievedKbps ?? NaN) / request.rtp!, `achieved/requested for ${large.at(-1)}`).toBeGreaterThanOrEqual(
      1 - PACE_TOLERANCE,
    );
    expect((record.achievedKbps ?? NaN) / request.rtp!, `achieved/requested for ${large.at(-1)}`).toBeLessThanOrEqual(1 + PACE_TOLERANCE);
  }
  test.info().annotations.push({ type: 'paced responses checked', description: large.join('; ') });
  expect(large.length, 'paced responses large enough to measure').toBeGreaterThanOrEqual(LARGE_PACED_SEGMENTS);
}

async function expectPacedSession(page: Page, query: string, mode: 'query' | 'header'): Promise<void> {
  const { watched } = await openDemo(page, query);
  await waitForPlayingVideoSegments(page, PACED_VIDEO_SEGMENTS);
  // As many large paced segments as the record check needs: how soon the player reaches the top rung,
  // whose segments are the large ones, depends on how fast the browser runs, not on the pace.
  await waitForPlayingVideoSegments(page, LARGE_PACED_SEGMENTS, { minPacedSendMs: MIN_PACED_SEND_MS });
  // Requests first: each one's decision was emitted before it left, so it is in the later log.
  const requests = [...watched.requests];
  const log = await watched.log();
  expect(log.playerErrors).toEqual([]);
  expect(log.playingAt).toBeDefined();
  expect(cmcdProblems(requests), 'malformed CMCD').toEqual([]);
  for (const r of requests) {
    // One transport per mode: the CMCD query parameter, or CMCD-* headers.
    expect([r.cmcdInQuery, r.cmcdInHeaders], `CMCD transport of ${r.url}`).toEqual(mode === 'query' ? [true, false] : [false, true]);
    if (mode === 'header' && r.rtp !== undefined) expect(r.headers['cmcd-status'], `CMCD-Status of ${r.url}`).toContain(`rtp=${r.rtp}`);
  }
  const paired = pairRequests(requests, log);
  const { paced } = expectRtpFollowsPlayback(paired, log);
  expect(paced.filter((p) => p.decision.mediaType === 'video').length).toBeGreaterThanOrEqual(PACED_VIDEO_SEGMENTS);
  await expectRecordsMatchPace(paced, log.samples);
  expect(watched.consoleErrors).toEqual([]);
}

test('the demo page plays: currentTime advances, no player error, no console error', async ({ page }) => {
  const { watched } = await openDemo(page, 'sammy=on');
  const video = page.locator('video#video');
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 30_000 }).toBeGreaterThan(1);
  const first = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(first + 2);
  const state = await video.evaluate((v: HTMLVideoElement) => ({ paused: v.paused, error: v.error?.message ?? null }));
  expect(state).toEqual({ paused: false, error: null });
  await expect(page.locator('#status')).toHaveText('');
  expect((await watched.log()).playerErrors).toEqual([]);
  expect(watched.consoleErrors).toEqual([]);
});

test('query mode: rtp = the reported pace on every segment request once playing, none before; the origin paces at it', async ({ page }) => {
  await expectPacedSession(page, 'sammy=on&cmcd=query', 'query');
});

test('header mode works like query mode: rtp in CMCD-Status, paced by the origin', async ({ page }) => {
  await expectPacedSession(page, 'sammy=on&cmcd=header', 'header');
});

test('a page on another origin plays from the origin in header mode: CMCD-* preflight answered, Server-Timing readable', async ({
  page,
}) => {
  // Same server, another origin for the browser: the page from localhost, the media from 127.0.0.1.
  const mediaOrigin = originUrl();
  const pageOrigin = new URL(mediaOrigin);
  pageOrigin.hostname = 'localhost';
  expect(pageOrigin.origin).not.toBe(new URL(mediaOrigin).origin);
  const watched = await watchPage(page, { demoHook: true });
  await page.goto(`${pageOrigin.origin}/?sammy=on&cmcd=header&origin=${encodeURIComponent(mediaOrigin)}`);
  await waitForPlayingVideoSegments(page, 3);
  const requests = [...watched.requests];
  expect(requests.length).toBeGreaterThan(0);
  for (const r of requests) expect(new URL(r.url).origin, `origin of ${r.url}`).toBe(new URL(mediaOrigin).origin);
  // CMCD-* headers are not CORS-safelisted: each of these went out only after a preflight was answered.
  const paced = requests.filter((r) => r.isSegment && r.rtp !== undefined && r.outcome === 'finished');
  expect(paced.length, 'paced segment requests that completed').toBeGreaterThan(0);
  for (const r of paced) expect(r.headers['cmcd-status'], `CMCD-Status of ${r.url}`).toContain(`rtp=${r.rtp}`);
  // Resource Timing exposes Server-Timing cross-origin only with Timing-Allow-Origin: the page plots its TCP figures.
  await expect
    .poll(() => page.evaluate(() => window.sammyDemo!.series().tcpDeliveryRate ?? 0), { message: 'Server-Timing read cross-origin' })
    .toBeGreaterThan(0);
  // The records are the origin's own business: no CORS on them, so this page does not follow them.
  expect(await page.evaluate(() => window.sammyDemo!.deliveryRecords())).toBe('unavailable');
  expect(watched.consoleErrors).toEqual([]);
});

test('turning Sammy off removes rtp, and chunk throughput rises well above the pace rate', async ({ page }) => {
  const { watched } = await openDemo(page, 'sammy=on');
  await waitForPlayingVideoSegments(page, 3, { enabled: true });
  // The page's own switch, as a viewer would use it.
  await page.locator('#sammy').uncheck();
  expect(await page.evaluate(() => window.sammyDemo!.sammy.enabled)).toBe(false);
  await waitForPlayingVideoSegments(page, 3, { enabled: false });
  const requests = [...watched.requests];
  const log = await watched.log();
  const offDecisions = log.decisions.filter((d) => !d.enabled);
  expect(offDecisions.length).toBeGreaterThan(0);
  const firstOff = Math.min(...offDecisions.map((d) => d.time));
  const paired = pairRequests(requests, log);
  const off = paired.filter((p) => p.decision.time >= firstOff);
  expect(
    off.every((p) => !p.decision.enabled),
    'every decision after the switch is made with Sammy off',
  ).toBe(true);
  expect(cmcdProblems(requests), 'malformed CMCD').toEqual([]);
  for (const { request } of off) {
    expect(request.rtp, `rtp on ${request.path} with Sammy off`).toBeUndefined();
    expect(request.cmcd.data, `CMCD still sent on ${request.path}`).not.toEqual({});
  }
  // The fastest pace sent: a pace that stuck would hold an unpaced segment at or below it.
  const paceKbps = Math.max(...log.decisions.filter((d) => d.paceRateKbps !== undefined).map((d) => d.paceRateKbps!));
  const offPaths = new Set(off.filter((p) => p.decision.mediaType === 'video').map((p) => p.request.path));
  const offThroughput = log.samples
    .filter((s) => s.mediaType === 'video' && offPaths.has(new URL(s.url).pathname))
    .map((s) => s.throughputKbps);
  expect(offThroughput.length).toBeGreaterThanOrEqual(3);
  // The origin saw no rtp and did not pace them (checked first: a pace that stuck would show here).
  const records = await recordsFor(off.filter((p) => p.decision.mediaType === 'video').map((p) => p.request));
  expect(records.size, 'records of unpaced video responses').toBeGreaterThan(0);
  for (const [request, record] of records) {
    expect(record.requestedRtpKbps, `requestedRtpKbps of ${request.path}`).toBeUndefined();
    expect(record.mechanism, `mechanism of ${request.path}`).toBe('none');
  }
  const deliveredKbps = median([...records.values()].flatMap((r) => r.achievedKbps ?? []));
  const figures = `fastest pace ${paceKbps} kbps; unpaced chunk throughput median ${Math.round(median(offThroughput))} kbps in the page, ${Math.round(deliveredKbps)} kbps in the origin's records`;
  test.info().annotations.push({ type: 'throughput', description: figures });
  // Unpaced on loopback the segments leave at hundreds of Mbps; a stuck pace would hold them near it. The
  // origin's delivery is the witness (a busy machine's browser measures its own slowness: 46 Mbps in the page
  // at load 10, 78 in the records), and twice the fastest pace tells the two apart.
  expect(deliveredKbps, figures).toBeGreaterThan(2 * paceKbps);
  expect(watched.consoleErrors).toEqual([]);
});

test('the graphs render with data, and a screenshot is saved', async ({ page }, testInfo) => {
  const { watched } = await openDemo(page, 'sammy=on');
  await waitForPlayingVideoSegments(page, 4);
  await expectGraphs(page);
  // Let one refresh (1 s) draw the latest points before the picture.
  await page.waitForTimeout(1100);
  const shot = await page.screenshot({ fullPage: true, path: testInfo.outputPath('demo-graphs.png') });
  await testInfo.attach('demo-graphs', { body: shot, contentType: 'image/png' });
  expect(watched.consoleErrors).toEqual([]);
});

test('a first visit plays an unpaced baseline, then switches Sammy on by itself; the summary compares the two', async ({ page }) => {
  test.setTimeout(120_000);
  // No `sammy` in the link: a first visit. 8 s instead of the default 20 keeps the test short.
  const { watched } = await openDemo(page, 'baseline=8');
  await expect(page.locator('#sammy')).not.toBeChecked();
  await expect(page.locator('#baseline')).toContainText('unpaced baseline');
  await waitForPlayingVideoSegments(page, 3, { enabled: false });
  await expect(page.locator('#sammy')).toBeChecked({ timeout: 30_000 });
  await expect(page.locator('#baseline')).toHaveText('');
  await waitForPlayingVideoSegments(page, 3, { enabled: true });
  await expect.poll(() => page.evaluate(() => window.sammyDemo!.summary().comparison !== undefined), { timeout: 30_000 }).toBe(true);
  const summary = await page.evaluate(() => window.sammyDemo!.summary());
  expect(summary.runs.map((r) => r.paced)).toEqual([false, true]);
  // Unpaced on loopback the segments arrive at hundreds of Mbps, paced near a pace of a few tens.
  expect(summary.comparison!.chunkThroughputReduction, JSON.stringify(summary.comparison)).toBeGreaterThan(0.5);
  await expect(page.locator('#comparison')).toContainText('Paced vs unpaced');
  expect(new URL(page.url()).searchParams.get('sammy')).toBe('on');
  const paired = pairRequests(watched.requests, await watched.log());
  const playingAt = (await watched.log()).playingAt!;
  // Sammy off sends no rtp; on, once playing, every video segment does.
  for (const { request, decision } of paired.filter((p) => p.decision.time > playingAt)) {
    expect(request.rtp !== undefined, `${request.path} (Sammy ${decision.enabled ? 'on' : 'off'}, ${decision.phase} phase)`).toBe(
      decision.enabled && decision.phase === 'playing',
    );
  }
  expect(watched.consoleErrors).toEqual([]);
});

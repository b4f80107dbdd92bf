/**
 * The demo page against the real origin: dash.js + the Sammy plugin in Chromium, CMCD `rtp` on the
 * wire, kernel pacing on the origin's sockets, the origin's delivery records, and the graphs.
 */
import { expect, test, type Page } from '@playwright/test';
import { RTP_STEP_KBPS, type DeliveryRecord } from 'sammy-pacing-protocol';
import { originUrl } from '../src/origin-env.js';
import { cmcdProblems, fetchRecords, median, watchPage, type CapturedRequest, type PageLog, type WatchedPage } from '../src/session.js';

/** ±15 %: kernel pacing lets the first congestion window out unpaced, and the record's clock ends at the last ACK. */
const PACE_TOLERANCE = 0.15;
/**
 * A response is "large enough to be paced meaningfully" when sending it at the requested rate
 * takes at least this long: the unpaced first window (~10 segments) then weighs little. At the
 * demo's ~18-20 Mbps pace that is ≥ ~2.3 MB, i.e. the 6 Mbps rung's 4 s segments (~3 MB).
 */
const MIN_PACED_SEND_MS = 1000;
const PACED_VIDEO_SEGMENTS = 6;

async function openDemo(page: Page, query: string): Promise<{ watched: WatchedPage; startedAt: number }> {
  const watched = await watchPage(page, { demoHook: true });
  const startedAt = Date.now();
  await page.goto(`${originUrl()}/?${query}`);
  return { watched, startedAt };
}

/**
 * Waits until `count` video segments requested after playback started (and, with `enabled`, with
 * Sammy in that state) have finished downloading. Independent of whether they were paced, so a
 * missing rtp shows up as an assertion on the requests rather than as a timeout.
 */
async function waitForPlayingVideoSegments(page: Page, count: number, enabled?: boolean): Promise<void> {
  await page.waitForFunction(
    ([n, on]) => {
      const log = window.__e2e;
      if (!log?.playingAt) return false;
      const playingAt = log.playingAt;
      const urls = new Set(
        log.decisions.filter((d) => d.mediaType === 'video' && d.time > playingAt && (on === null || d.enabled === on)).map((d) => d.url),
      );
      return log.samples.filter((s) => urls.has(s.url)).length >= n;
    },
    [count, enabled ?? null] as const,
    { timeout: 45_000 },
  );
}

interface Paired {
  request: CapturedRequest;
  decision: PageLog['decisions'][number];
}

/**
 * Pairs each captured segment request with the plugin's decision for the same URL, in order
 * (a URL can be asked for twice). Decisions come first: the plugin emits them in its interceptor.
 */
function pairRequests(requests: readonly CapturedRequest[], log: PageLog): Paired[] {
  const unused = [...log.decisions];
  return requests
    .filter((r) => r.isSegment)
    .map((request) => {
      const at = unused.findIndex((d) => new URL(d.url).pathname === request.path);
      expect(at, `no plugin decision for the segment request ${request.url}`).toBeGreaterThanOrEqual(0);
      const [decision] = unused.splice(at, 1);
      return { request, decision: decision! };
    });
}

/**
 * The core claim: before playback starts no segment request carries `rtp`; after it, every one
 * carries exactly the pace the plugin reported for it, a multiple of 100 kbps.
 */
function expectRtpFollowsPlayback(paired: readonly Paired[], playingAt: number): { paced: Paired[] } {
  const before = paired.filter((p) => p.decision.time < playingAt);
  const after = paired.filter((p) => p.decision.time > playingAt);
  expect(before.length, 'segment requests before playback started').toBeGreaterThan(0);
  for (const { request, decision } of before) {
    expect(request.rtp, `rtp before playback started on ${request.path}`).toBeUndefined();
    expect(decision.paceRateKbps).toBeUndefined();
  }
  for (const { request, decision } of after) {
    expect(decision.phase, `plugin phase at ${request.path} (${decision.time - playingAt} ms after the first 'playing')`).toBe('playing');
    expect(request.rtp, `rtp on ${request.path}, requested ${decision.time - playingAt} ms after playback started`).toBeDefined();
    expect(request.rtp).toBe(decision.paceRateKbps);
    expect(request.rtp! % RTP_STEP_KBPS).toBe(0);
  }
  return { paced: after };
}

/**
 * The origin's delivery records for these request paths, once all are written (a record is
 * written when the last byte is acknowledged). `DeliveryRecord.path` is the request path.
 */
async function recordsFor(paths: readonly string[], startedAt: number): Promise<Map<string, DeliveryRecord>> {
  let found = new Map<string, DeliveryRecord>();
  let seen: string[] = [];
  try {
    await expect
      .poll(async () => {
        const records = (await fetchRecords(originUrl())).filter((r) => r.startedAt >= startedAt - 1000);
        seen = records.map((r) => r.path);
        found = new Map(records.filter((r) => paths.includes(r.path)).map((r) => [r.path, r]));
        return paths.filter((p) => !found.has(p));
      }, { message: 'delivery records by request path' })
      .toEqual([]);
  } catch (error) {
    // Say what the origin did record: a wrong path is the likely cause.
    throw new Error(`${(error as Error).message}\nThe origin recorded, since the test started, paths like ${JSON.stringify(seen.slice(0, 4))}`);
  }
  return found;
}

/** The origin paced each large paced response at the rtp it carried, within ±15 %. */
async function expectRecordsMatchPace(paced: readonly Paired[], startedAt: number): Promise<void> {
  const wanted = paced.filter((p) => p.request.rtp !== undefined);
  const byPath = await recordsFor(wanted.map((p) => p.request.path), startedAt);
  const large: string[] = [];
  for (const { request } of wanted) {
    const record = byPath.get(request.path)!;
    expect(record.requestedRtpKbps, `requestedRtpKbps of ${request.path}`).toBe(request.rtp);
    expect(record.mechanism).toBe('kernel');
    expect(record.aborted).toBe(false);
    const sendMs = (record.bytes * 8) / request.rtp!;
    if (sendMs < MIN_PACED_SEND_MS) continue;
    large.push(`${request.path}: ${record.bytes} B, achieved ${Math.round(record.achievedKbps)} of ${request.rtp} kbps`);
    expect(record.achievedKbps / request.rtp!, `achieved/requested for ${large.at(-1)}`).toBeGreaterThanOrEqual(1 - PACE_TOLERANCE);
    expect(record.achievedKbps / request.rtp!, `achieved/requested for ${large.at(-1)}`).toBeLessThanOrEqual(1 + PACE_TOLERANCE);
  }
  test.info().annotations.push({ type: 'paced responses checked', description: large.join('; ') });
  expect(large.length, 'paced responses large enough to measure').toBeGreaterThanOrEqual(3);
}

async function expectPacedSession(page: Page, query: string, mode: 'query' | 'header'): Promise<void> {
  const { watched, startedAt } = await openDemo(page, query);
  await waitForPlayingVideoSegments(page, PACED_VIDEO_SEGMENTS);
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
  const { paced } = expectRtpFollowsPlayback(paired, log.playingAt!);
  expect(paced.filter((p) => p.decision.mediaType === 'video').length).toBeGreaterThanOrEqual(PACED_VIDEO_SEGMENTS);
  await expectRecordsMatchPace(paced, startedAt);
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

test('turning Sammy off removes rtp, and chunk throughput rises well above the pace rate', async ({ page }) => {
  const { watched, startedAt } = await openDemo(page, 'sammy=on');
  await waitForPlayingVideoSegments(page, 3, true);
  // The page's own switch, as a viewer would use it.
  await page.locator('#sammy').uncheck();
  expect(await page.evaluate(() => window.sammyDemo!.sammy.enabled)).toBe(false);
  await waitForPlayingVideoSegments(page, 3, false);
  const requests = [...watched.requests];
  const log = await watched.log();
  const offDecisions = log.decisions.filter((d) => !d.enabled);
  expect(offDecisions.length).toBeGreaterThan(0);
  const firstOff = Math.min(...offDecisions.map((d) => d.time));
  const paired = pairRequests(requests, log);
  const off = paired.filter((p) => p.decision.time >= firstOff);
  expect(off.every((p) => !p.decision.enabled), 'every decision after the switch is made with Sammy off').toBe(true);
  expect(cmcdProblems(requests), 'malformed CMCD').toEqual([]);
  for (const { request } of off) {
    expect(request.rtp, `rtp on ${request.path} with Sammy off`).toBeUndefined();
    expect(request.cmcd.data, `CMCD still sent on ${request.path}`).not.toEqual({});
  }
  const paceKbps = median(log.decisions.filter((d) => d.paceRateKbps !== undefined).map((d) => d.paceRateKbps!));
  const offPaths = new Set(off.filter((p) => p.decision.mediaType === 'video').map((p) => p.request.path));
  const offThroughput = log.samples.filter((s) => s.mediaType === 'video' && offPaths.has(new URL(s.url).pathname)).map((s) => s.throughputKbps);
  expect(offThroughput.length).toBeGreaterThanOrEqual(3);
  test.info().annotations.push({ type: 'throughput', description: `pace ${paceKbps} kbps; unpaced chunk throughput median ${Math.round(median(offThroughput))} kbps` });
  // Unpaced on loopback the segments arrive at hundreds of Mbps; paced they would arrive near the pace.
  expect(median(offThroughput)).toBeGreaterThan(3 * paceKbps);
  // The origin saw no rtp and did not pace them.
  const records = await recordsFor([...offPaths], startedAt);
  for (const [path, record] of records) {
    expect(record.requestedRtpKbps, `requestedRtpKbps of ${path}`).toBeUndefined();
    expect(record.mechanism, `mechanism of ${path}`).toBe('none');
  }
  expect(watched.consoleErrors).toEqual([]);
});

test('the graphs render with data, and a screenshot is saved', async ({ page }, testInfo) => {
  const { watched } = await openDemo(page, 'sammy=on');
  await waitForPlayingVideoSegments(page, 4);
  const needed = ['chunkThroughput', 'deliveryRate', 'paceRate', 'bitrate', 'topBitrate', 'bufferLevel', 'rtt', 'retransmits'];
  await expect
    .poll(async () => {
      const series = await page.evaluate(() => window.sammyDemo!.series());
      return needed.filter((name) => !((series[name] ?? 0) > 0));
    }, { message: 'graph series still empty' })
    .toEqual([]);
  // uPlot draws into a canvas per chart; each must have a size.
  for (const id of ['chart-rates', 'chart-buffer', 'chart-tcp']) {
    const box = await page.locator(`#${id} canvas`).first().boundingBox();
    expect(box?.width ?? 0, `${id} canvas width`).toBeGreaterThan(100);
    expect(box?.height ?? 0, `${id} canvas height`).toBeGreaterThan(50);
  }
  // Let one refresh (1 s) draw the latest points before the picture.
  await page.waitForTimeout(1100);
  const shot = await page.screenshot({ fullPage: true, path: testInfo.outputPath('demo-graphs.png') });
  await testInfo.attach('demo-graphs', { body: shot, contentType: 'image/png' });
  expect(watched.consoleErrors).toEqual([]);
});

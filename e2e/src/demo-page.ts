/**
 * Driving the demo page, shared by the specs that load it (over HTTP/1.1 and over HTTP/2, with each
 * player): opening it watched, waiting for playing-phase segments, pairing each segment request with
 * the plugin's decision for it, the rtp each carried, and checking that the graphs are drawn.
 */
import { expect, test, type Page } from '@playwright/test';
import { RTP_STEP_KBPS } from 'sammy-pacing-protocol';
import { originUrl } from './origin-env.js';
import { duringStallOrSeek, watchPage, type CapturedRequest, type PageLog, type WatchedPage } from './session.js';

/** The players the demo page offers (`?player=`: demo-site/src/players/player.ts's PLAYER_NAMES, as the page shows them). */
export const DEMO_PLAYERS = ['dashjs', 'shaka', 'hlsjs'] as const;
export type DemoPlayerName = (typeof DEMO_PLAYERS)[number];

/** Opens the demo page of the HTTP/1.1 origin with this query, watched from before it loads. */
export async function openDemo(page: Page, query: string): Promise<{ watched: WatchedPage; startedAt: number }> {
  const watched = await watchPage(page, { demoHook: true });
  const startedAt = Date.now();
  await page.goto(`${originUrl()}/?${query}`);
  return { watched, startedAt };
}

/**
 * Waits until `count` video segments requested after playback started (with `enabled`, with Sammy
 * in that state; with `after`, decided after that time, page clock ms) have finished downloading.
 * Independent of whether they were paced, so a missing rtp shows up as an assertion on the
 * requests rather than as a timeout.
 */
export async function waitForPlayingVideoSegments(
  page: Page,
  count: number,
  only: { enabled?: boolean; after?: number; minPacedSendMs?: number } = {},
): Promise<void> {
  await page.waitForFunction(
    ([n, on, after, minSendMs]) => {
      const log = window.__e2e;
      if (!log?.playingAt) return false;
      const from = Math.max(log.playingAt, after);
      const urls = new Set(
        log.decisions.filter((d) => d.mediaType === 'video' && d.time > from && (on === null || d.enabled === on)).map((d) => d.url),
      );
      // minSendMs: only paced segments that take at least that long to send at their pace (a large, top-rung one).
      const counted = (s: (typeof log.samples)[number]) =>
        minSendMs === null || (s.paceRateKbps !== undefined && (s.bytes * 8) / s.paceRateKbps >= minSendMs);
      return log.samples.filter((s) => urls.has(s.url) && counted(s)).length >= n;
    },
    [count, only.enabled ?? null, only.after ?? -Infinity, only.minPacedSendMs ?? null] as const,
    { timeout: 45_000 },
  );
}

export interface Paired {
  request: CapturedRequest;
  decision: PageLog['decisions'][number];
}

/**
 * Pairs each captured segment request with the plugin's decision for the same URL, in order
 * (a URL can be asked for twice). Decisions come first: the plugin emits them in its interceptor.
 */
export function pairRequests(requests: readonly CapturedRequest[], log: PageLog): Paired[] {
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
 * carries exactly the pace the plugin reported for it, a multiple of 100 kbps — except while the
 * page saw playback stall again, or a seek (the initial phase once more, unpaced by design). An
 * unpaced decision after playback started that no stall or seek explains fails. Returns the paced ones.
 */
export function expectRtpFollowsPlayback(
  paired: readonly Paired[],
  log: Pick<PageLog, 'playingAt' | 'stalls' | 'seeks'>,
): { paced: Paired[] } {
  const playingAt = log.playingAt!;
  expect(playingAt, "the video's first 'playing'").toBeDefined();
  const before = paired.filter((p) => p.decision.time < playingAt);
  const after = paired.filter((p) => p.decision.time > playingAt);
  expect(before.length, 'segment requests before playback started').toBeGreaterThan(0);
  for (const { request, decision } of before) {
    expect(request.rtp, `rtp before playback started on ${request.path}`).toBeUndefined();
    expect(decision).toMatchObject({ phase: 'initial', paceRateKbps: undefined });
  }
  test.info().annotations.push({
    type: 'stalls and seeks after playback started',
    description: JSON.stringify({ stalls: log.stalls, seeks: log.seeks }),
  });
  for (const { request, decision } of after) {
    const what = `${request.path}, requested ${decision.time - playingAt} ms after the first 'playing'`;
    expect(request.rtp, `rtp on ${what}`).toBe(decision.paceRateKbps);
    if (decision.phase === 'playing') {
      expect(request.rtp, `rtp on ${what}`).toBeDefined();
      expect(request.rtp! % RTP_STEP_KBPS).toBe(0);
    } else {
      expect(
        duringStallOrSeek(log, decision.time),
        `initial phase (unpaced) at ${what}, outside any stall or seek the page saw: ${JSON.stringify({ stalls: log.stalls, seeks: log.seeks })}`,
      ).toBe(true);
      expect(request.rtp, `rtp on ${what} (initial phase)`).toBeUndefined();
    }
  }
  return { paced: after.filter((p) => p.decision.phase === 'playing') };
}

/** Every graph series has points (Server-Timing and the records stream reached the page), and each chart is drawn. */
export async function expectGraphs(page: Page): Promise<void> {
  const needed = [
    'chunkThroughput',
    'achievedRate',
    'tcpDeliveryRate',
    'paceRate',
    'bitrate',
    'topBitrate',
    'bufferLevel',
    'rtt',
    'retransmits',
  ];
  await expect
    .poll(
      async () => {
        const series = await page.evaluate(() => window.sammyDemo!.series());
        return needed.filter((name) => !((series[name] ?? 0) > 0));
      },
      { message: 'graph series still empty' },
    )
    .toEqual([]);
  // uPlot draws into a canvas per chart; each must have a size.
  for (const id of ['chart-rates', 'chart-delivery', 'chart-buffer', 'chart-tcp']) {
    const box = await page.locator(`#${id} canvas`).first().boundingBox();
    expect(box?.width ?? 0, `${id} canvas width`).toBeGreaterThan(100);
    expect(box?.height ?? 0, `${id} canvas height`).toBeGreaterThan(50);
  }
}

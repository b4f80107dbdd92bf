/**
 * Driving the demo page, shared by the specs that load it (over HTTP/1.1 and over HTTP/2): waiting
 * for playing-phase segments, pairing each segment request with the plugin's decision for it, and
 * checking that the graphs are drawn.
 */
import { expect, type Page } from '@playwright/test';
import type { CapturedRequest, PageLog } from './session.js';

/**
 * Waits until `count` video segments requested after playback started (and, with `enabled`, with
 * Sammy in that state) have finished downloading. Independent of whether they were paced, so a
 * missing rtp shows up as an assertion on the requests rather than as a timeout.
 */
export async function waitForPlayingVideoSegments(page: Page, count: number, enabled?: boolean): Promise<void> {
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

/** Every graph series has points (Server-Timing and the records stream reached the page), and each chart is drawn. */
export async function expectGraphs(page: Page): Promise<void> {
  const needed = ['chunkThroughput', 'achievedRate', 'tcpDeliveryRate', 'paceRate', 'bitrate', 'topBitrate', 'bufferLevel', 'rtt', 'retransmits'];
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
}

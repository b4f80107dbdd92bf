/**
 * The consumer apps' shared claim (dash.js, Shaka, hls.js): the app built from the packed tarballs
 * plays in Chromium against the reference origin, and every media segment it requested went with
 * the pace the README snippet printed for it — none in the initial phase, where the origin leaves
 * it unpaced; the printed pace in the playing phase, which the origin applied in the kernel.
 */
import { expect, type Page } from '@playwright/test';
import { startOrigin, type StartOriginOptions } from '@sammy/origin-server';
import { clampPaceKbps } from 'sammy-pacing-protocol';
import { cmcdProblems, watchPage, type WatchedPage } from '../session.js';

/** What the snippets' decision listener prints: `${phase}: ${bitrate} kbps, pace ${pace ?? 'none'} kbps`. */
export const DECISION_LINE = /^(initial|playing): (\d+(?:\.\d+)?) kbps, pace (none|\d+) kbps$/;

/** Answered paced segment requests each consumer app must show. */
const PACED_SEGMENTS = 3;

export interface PlaysPacedOptions {
  /**
   * HTTPS with HTTP/2: one connection's pace covers every stream, so a request that arrives while
   * another response is still sending may find it kept or raised (sammy-conn), never below its own
   * rtp, and an initial-phase request may find the connection paced; every media request must go over h2.
   */
  shared?: boolean;
  /** The player aborts downloads in flight (Shaka, when it switches variants): those have no response to check. */
  aborts?: boolean;
}

/** Opens the built app at `originUrl`, waits for 4 segment requests after playback started, checks every segment; returns what it watched. */
export async function expectAppPlaysPaced(
  page: Page,
  originUrl: string,
  options: PlaysPacedOptions = {},
): Promise<{ watched: WatchedPage; printed: string[] }> {
  const printed: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'log') printed.push(m.text());
  });
  const watched = await watchPage(page, { demoHook: false });
  await page.goto(`${originUrl}/`);
  const video = page.locator('video');
  await expect(video).toHaveCount(1);
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 30_000 }).toBeGreaterThan(2);
  const playingAt = (await watched.log()).playingAt;
  expect(playingAt).toBeDefined();
  // Some segment requests after playback started, paced or not (a missing rtp must fail below, not time out),
  // and as many answered paced ones as the count below needs: a player that aborts on a switch (Shaka, more
  // often on a busy machine) takes more requests to get there.
  await expect
    .poll(() => watched.requests.filter((r) => r.isSegment && r.time > playingAt! + 200).length, { timeout: 30_000 })
    .toBeGreaterThanOrEqual(4);
  await expect
    .poll(() => watched.requests.filter((r) => r.isSegment && r.rtp !== undefined && r.outcome === 'finished').length, {
      message: 'answered paced segment requests',
      timeout: 45_000,
    })
    .toBeGreaterThanOrEqual(PACED_SEGMENTS);

  const segments = watched.requests.filter((r) => r.isSegment);
  const decisions = printed.filter((l) => DECISION_LINE.test(l)).map((l) => DECISION_LINE.exec(l)!);
  // One printed decision per media segment request, in order (both come from the same hook call).
  expect(decisions.length).toBeGreaterThanOrEqual(segments.length);
  expect(cmcdProblems(watched.requests), 'malformed CMCD').toEqual([]);
  let paced = 0;
  for (const [i, request] of segments.entries()) {
    const [line, phase, , pace] = decisions[i]!;
    // The newest segments may still be downloading (a paced one takes seconds): wait for their responses.
    await expect.poll(() => request.outcome, { message: `the response to ${request.path}`, timeout: 30_000 }).not.toBe('pending');
    if (phase === 'initial') expect(request.rtp, `rtp on ${request.path} in the initial phase`).toBeUndefined();
    else expect(request.rtp, `rtp on ${request.path}: the printed pace (${line})`).toBe(Number(pace));
    if (request.outcome === 'failed') {
      expect(options.aborts, `${request.path} failed`).toBe(true);
      continue;
    }
    const report = request.serverTiming;
    expect(report, `Server-Timing of ${request.path}`).toBeDefined();
    if (phase === 'initial') {
      if (!options.shared) expect(report!.mechanism, `${request.path} unpaced`).toBe('none');
      continue;
    }
    expect(report!.requestedRtpKbps, `Server-Timing rtp of ${request.path}`).toBe(request.rtp);
    if (options.shared && report!.sharedConnection?.reason !== 'own') {
      expect(report!.appliedPaceKbps, `connection pace kept or raised for ${request.path}`).toBeGreaterThanOrEqual(request.rtp!);
    } else {
      // The origin raises an rtp below its floor (1024 kbps) to it.
      expect(report!.appliedPaceKbps, `Server-Timing applied pace of ${request.path}`).toBe(clampPaceKbps(request.rtp!));
    }
    expect(report!.mechanism, `${request.path} paced by the kernel`).toBe('kernel');
    paced++;
  }
  expect(
    decisions.some(([, phase]) => phase === 'initial'),
    'an initial-phase decision was printed',
  ).toBe(true);
  expect(paced, 'paced playing-phase segment requests').toBeGreaterThanOrEqual(PACED_SEGMENTS);
  if (options.shared) {
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
  return { watched, printed };
}

/**
 * Serves a built app's folder (`siteDir`) with the test ladder at /media/ from a reference origin of
 * its own, checks it as `expectAppPlaysPaced` does, and closes the origin.
 */
export async function expectServedAppPlaysPaced(
  page: Page,
  siteDir: string,
  options: PlaysPacedOptions = {},
  origin: StartOriginOptions = {},
): Promise<{ watched: WatchedPage; printed: string[] }> {
  const served = await startOrigin({ port: 0, host: '127.0.0.1', siteDir, congestionControl: 'cubic', ...origin });
  try {
    return await expectAppPlaysPaced(page, served.url, options);
  } finally {
    await served.close();
  }
}

/**
 * A viewer seeks while a paced segment is downloading — in each player of the demo page (dash.js,
 * Shaka Player, hls.js), over HTTP/1.1 and over HTTP/2 with TLS. What must happen:
 * - the player aborts that download, and Sammy takes no sample from it (a cut-off download says
 *   nothing of the link);
 * - the origin records it as aborted, with the bytes the client got, and keeps serving;
 * - Sammy is back in the initial phase until playback resumes: the segments for the new position
 *   carry no `rtp` and the origin sends them unpaced — on HTTP/2 too, where the aborted stream
 *   shared the connection's pace (a reset stream has no bytes left to send: it must not keep
 *   the connection paced);
 * - playback resumes at the new position and every segment from then on is paced again;
 * - playback reaches the end and the page's loop starts again from 0 (the seek lands near the end).
 */
import { expect, test, type Page } from '@playwright/test';
import type { DeliveryRecord } from 'sammy-pacing-protocol';
import { DEMO_PLAYERS, expectRtpFollowsPlayback, pairRequests, waitForPlayingVideoSegments } from '../src/demo-page.js';
import { h2Certificate, h2OriginUrl, h2SpkiHash, originUrl, trustingDevCertificate } from '../src/origin-env.js';
import {
  cmcdProblems,
  fetchRecords,
  inFlightWhenSent,
  recordsOfResponses,
  watchPage,
  type CapturedRequest,
  type WatchedPage,
} from '../src/session.js';

test.use({ launchOptions: trustingDevCertificate() });

/**
 * Every player aborts the download: Shaka and hls.js by themselves; dash.js 5.2 only through
 * sammy-pacing-dashjs's fix (src/loader-aborts.ts) — with CMCD on, its own abort aborts nothing,
 * and the old download landing late made it signal end of stream early and never end.
 */
const PROTOCOLS = ['http/1.1', 'h2'] as const;
/** Paced video segments before the seek, and after playback resumed. */
const PACED_BEFORE = 3;
const PACED_AFTER = 2;
/**
 * A download to cut: paced, video, its response headers in (the origin has a record of it), and
 * this far into its body — a top-rung segment at its pace takes ~3 s, so it is mid-body.
 */
const IN_FLIGHT_MS = { min: 300, max: 1500 };

/** The paced video segment request in flight, once one is IN_FLIGHT_MS into its download. */
async function pacedVideoInFlight(watched: WatchedPage): Promise<CapturedRequest> {
  let found: CapturedRequest | undefined;
  await expect
    .poll(
      () => {
        const now = Date.now();
        found = watched.requests.find(
          (r) =>
            r.isSegment &&
            r.outcome === 'pending' &&
            r.rtp !== undefined &&
            r.recordId !== undefined &&
            r.cmcd.data?.ot === 'v' &&
            now - r.time >= IN_FLIGHT_MS.min &&
            now - r.time <= IN_FLIGHT_MS.max,
        );
        return found !== undefined;
      },
      { message: 'a paced video segment mid-download', intervals: [20], timeout: 45_000 },
    )
    .toBe(true);
  return found!;
}

/**
 * Seeks the video to a position nothing is buffered around (the test clip is 60 s; players keep
 * a back buffer too), so that the player must fetch it. Returns when and where, page clock.
 */
async function seekOutsideBuffer(page: Page): Promise<{ at: number; from: number; to: number }> {
  return page.evaluate(() => {
    const video = document.querySelector('video')!;
    const buffered = Array.from({ length: video.buffered.length }, (_, i) => [video.buffered.start(i), video.buffered.end(i)] as const);
    const from = video.currentTime;
    // One segment (4 s) clear of anything buffered; near the end first, so that the stream's last
    // segments are requested while the cut download would still be running had it not been cut
    // (dash.js 5.2 then signalled end of stream early and never ended), yet with room for the
    // paced segments after it.
    const to = [40, 44, 28, 20].find((t) => Math.abs(t - from) > 8 && !buffered.some(([s, e]) => s - 4 <= t && t <= e + 4));
    if (to === undefined) throw new Error(`no position outside the buffered ranges ${JSON.stringify(buffered)} (at ${from} s)`);
    const at = Date.now();
    video.currentTime = to;
    return { at, from, to };
  });
}

for (const protocol of PROTOCOLS) {
  for (const player of DEMO_PLAYERS) {
    test(`${player} over ${protocol}: a seek mid-download aborts the paced segment, the new position starts unpaced, pacing resumes with playback`, async ({
      page,
    }) => {
      // Up to a minute of it is playing from the seek to the end.
      test.setTimeout(150_000);
      const h2 = protocol === 'h2';
      if (h2) expect(h2SpkiHash(), 'the certificate hash Chromium was told to trust').not.toBe('');
      const origin = h2 ? h2OriginUrl() : originUrl();
      const ca = h2 ? h2Certificate() : undefined;
      const watched = await watchPage(page, { demoHook: true });
      await page.goto(`${origin}/?player=${player}&sammy=on&cmcd=query`);
      await waitForPlayingVideoSegments(page, PACED_BEFORE);

      const cut = await pacedVideoInFlight(watched);
      const seek = await seekOutsideBuffer(page);
      const cutAfterMs = seek.at - cut.time;
      // Playback resumed at the new position, and Sammy paced video segments again there.
      let resumedAt: number | undefined;
      await expect
        .poll(
          async () => {
            const span = await page.evaluate((at) => window.__e2e!.seeks.find((s) => s.at >= at), seek.at);
            resumedAt = span?.resumedAt;
            return resumedAt !== undefined;
          },
          { message: `playback resumed after the seek to ${seek.to} s`, timeout: 45_000 },
        )
        .toBe(true);
      await waitForPlayingVideoSegments(page, PACED_AFTER, { after: resumedAt });
      const requests = [...watched.requests];
      const log = await watched.log();
      const what = `seek ${seek.from.toFixed(1)} → ${seek.to} s, ${cutAfterMs} ms into ${cut.path} (rtp ${cut.rtp})`;
      const seekSpan = log.seeks.find((s) => s.at >= seek.at);
      expect(seekSpan?.resumedAt, `the seek in the page's log (${what})`).toBeDefined();
      expect(log.playerErrors).toEqual([]);
      expect(cmcdProblems(requests), 'malformed CMCD').toEqual([]);
      expect(seekSpan!.resumedAtSeconds, `where playback resumed (${what})`).toBeGreaterThanOrEqual(seek.to);
      expect(seekSpan!.resumedAtSeconds).toBeLessThan(seek.to + 4);

      const paired = pairRequests(requests, log);
      const cutPair = paired.find((p) => p.request === cut)!;
      await test.step('the player aborted the paced download; Sammy took no sample from it; the origin recorded it aborted', async () => {
        expect(cutPair, `Sammy's decision for ${cut.path}`).toBeDefined();
        const samples = log.samples.filter((s) => s.url === cutPair.decision.url && s.time >= cutPair.decision.time);
        let record: DeliveryRecord | undefined;
        const recordOf = async () => {
          record = (await fetchRecords(origin, ca)).find((r) => r.id === cut.recordId);
          return record?.endReason;
        };
        await expect.poll(() => cut.outcome, { message: `outcome of ${cut.path} (${what})` }).toBe('failed');
        expect(samples, `samples of the aborted ${cut.path}`).toEqual([]);
        // What the client's TCP acknowledged: some of what was written (`closed`, a lower bound), or
        // — when the origin had handed the whole response to the kernel before the reset arrived
        // (HTTP/2) — all of it (`delivered`: the bytes reached the client, which threw them away).
        await expect.poll(recordOf, { message: `the origin's record ${cut.recordId} of ${cut.path}` }).toMatch(/^(closed|delivered)$/);
        if (record!.endReason === 'closed') {
          expect(record!.aborted).toBe(true);
          expect(record!.bytes, `bytes the client acknowledged of ${cut.path}`).toBeGreaterThan(0);
          expect(record!.bytes).toBeLessThanOrEqual(record!.bytesWritten);
        } else {
          expect(h2, `${cut.path} delivered in full though the player aborted it, over HTTP/1.1`).toBe(true);
          expect(record!.bytes).toBe(record!.bytesWritten);
        }
        expect(record!.path).toBe(cut.path);
        expect(record!.appliedPaceKbps, `the pace ${cut.path} had`).toBe(cut.rtp);
        if (h2) expect(record!.httpVersion).toBe('2');
        console.log(
          `[seek ${player} ${protocol}] ${what}: ${record!.endReason} with ${record!.bytes} B acknowledged of ${record!.bytesWritten} B written, ` +
            `paced at ${record!.appliedPaceKbps} kbps; playback resumed ${seekSpan!.resumedAt! - seek.at} ms after the seek, at ${seekSpan!.resumedAtSeconds!.toFixed(2)} s`,
        );
      });

      const { byRequest: records, all } = await recordsOfResponses(requests, origin, { ca });
      await test.step('the segments for the new position: initial phase, no rtp, sent unpaced', () => {
        // From the element's `seeking` event, which the page's log takes before the player's own
        // listeners (that drive the plugin's phase): the element queues it after the seek begins,
        // and a player's timer can decide one more segment for the old position in between (a CI
        // run on 2 busy cores saw dash.js decide the next audio segment 5 ms after the seek began).
        const during = paired.filter((p) => p.decision.time > seekSpan!.at && p.decision.time < seekSpan!.resumedAt!);
        expect(
          during.filter((p) => p.decision.mediaType === 'video').length,
          `video segments requested between the seek and the resumption (${what})`,
        ).toBeGreaterThan(0);
        const lines: string[] = [];
        for (const { request, decision } of during) {
          const where = `${request.path}, requested ${decision.time - seekSpan!.at} ms after the element's seeking event (${seekSpan!.at - seek.at} ms after the seek began)`;
          expect(decision.phase, `phase at ${where}`).toBe('initial');
          expect(request.rtp, `rtp on ${where}`).toBeUndefined();
          const record = records.get(request);
          if (request.outcome !== 'finished') continue;
          expect(record, `the origin's record of ${where}`).toBeDefined();
          lines.push(
            `${request.path}: ${record!.bytes} B at ${record!.achievedKbps === undefined ? 'a rate too quick to time' : `${Math.round(record!.achievedKbps)} kbps`}, pace ${record!.appliedPaceKbps ?? 'none'}, connection ${record!.connectionId}${h2 ? `, ${record!.paceReason}` : ''}`,
          );
          if (record!.appliedPaceKbps === undefined) continue;
          // Paced only on a shared connection, and only by a response still sending (the pace
          // only rises while one is): never by the aborted download, whose stream is reset.
          expect(h2, `pace ${record!.appliedPaceKbps} kbps on ${where} over HTTP/1.1`).toBe(true);
          expect(record!.paceReason, `pace reason of ${where}`).toBe('kept');
          const keepers = inFlightWhenSent(all, record!, decision.time).filter((o) => o.appliedPaceKbps === record!.appliedPaceKbps);
          expect(
            keepers.filter((o) => !o.aborted).map((o) => o.path),
            `a response not aborted, in flight when ${where} arrived, with its pace (in flight: ${keepers.map((o) => `${o.path} ${o.endReason}`).join(', ') || 'none'})`,
          ).not.toEqual([]);
        }
        console.log(`[seek ${player} ${protocol}] after the seek:\n  ${lines.join('\n  ')}`);
      });

      await test.step('every segment after playback resumed carries the pace again, and the origin applies it', () => {
        // rtp on the wire = the decision's pace throughout; the unpaced ones fall in the seek.
        const { paced } = expectRtpFollowsPlayback(paired, log);
        const after = paced.filter((p) => p.decision.time > seekSpan!.resumedAt!);
        expect(
          after.filter((p) => p.decision.mediaType === 'video').length,
          'paced video segments after playback resumed',
        ).toBeGreaterThanOrEqual(PACED_AFTER);
        for (const { request } of after) {
          const record = records.get(request);
          if (!record) continue;
          expect(record.requestedRtpKbps, `requested rtp in the record of ${request.path}`).toBe(request.rtp);
          expect(record.appliedPaceKbps, `applied pace of ${request.path}`).toBeDefined();
        }
      });
      await test.step("playback reaches the end, and the page's loop starts again from 0", async () => {
        // The page loops (dash.js and Shaka seek to 0 on `ended`, hls.js's element loops): a seek
        // that lands at the start, after the one made here.
        await expect
          .poll(
            async () =>
              (await watched.log()).seeks.some(
                (s) => s.at > seekSpan!.resumedAt! && s.resumedAtSeconds !== undefined && s.resumedAtSeconds < 4,
              ),
            {
              message: `the loop back to 0 after playing from ${seek.to} s to the end (${what})`,
              timeout: (60 - seek.to + 15) * 1000,
            },
          )
          .toBe(true);
      });
      expect(watched.consoleErrors).toEqual([]);
    });
  }
}

/**
 * The demo page over HTTP/2 (TLS, the development certificate): every media request of the page —
 * manifest, init, audio and video segments — shares one TCP connection, and so one socket pace.
 * The origin paces the connection by the shared-connection rules (sammy-pacing-protocol
 * decideConnectionPace): while other responses are in flight the pace only rises (a media segment
 * without rtp unpaces it: seek.spec.ts); on an idle connection a request's own rtp (or none: unpaced) decides. Once per player of the page: dash.js,
 * Shaka Player (the DASH manifest) and hls.js (the HLS playlists), each with its own adapter.
 *
 * Chromium trusts exactly this certificate, by its public-key hash (--ignore-certificate-errors-spki-list),
 * never every certificate (--ignore-certificate-errors).
 */
import { expect, test, type Page } from '@playwright/test';
import { parseServerTiming, type DeliveryRecord, type PacingReport } from 'sammy-pacing-protocol';
import { DEFAULT_MANIFEST_PATH } from '@sammy/test-content/media-paths';
import {
  DEMO_PLAYERS,
  expectGraphs,
  expectRtpFollowsPlayback,
  pairRequests,
  waitForPlayingVideoSegments,
  type DemoPlayerName,
  type Paired,
} from '../src/demo-page.js';
import { h2Certificate, h2OriginUrl, h2SpkiHash, trustingDevCertificate } from '../src/origin-env.js';
import {
  cmcdProblems,
  inFlightWhenSent,
  median,
  recordsOfResponses,
  watchPage,
  type CapturedRequest,
  type PageLog,
} from '../src/session.js';

test.use({ launchOptions: trustingDevCertificate() });

/** ±15 %: as over HTTP/1.1 (demo.spec.ts), the record's clock ends at the last ACK. */
const PACE_TOLERANCE = 0.15;
/** A group of responses is measured against the pace when sending its bytes at that pace takes at least this long. */
const MIN_PACED_SEND_MS = 1000;
/** Playing-phase video segments to watch: enough for the rule's 5-sample window to turn over twice. */
const PLAYING_VIDEO_SEGMENTS = 10;

/** Counts the page's own /media/ requests in flight (XHR and fetch), so the player can be stopped between two. */
function countMediaInFlight(): void {
  const w = window as unknown as { __mediaInFlight: number };
  w.__mediaInFlight = 0;
  const isMedia = (url: string | URL) => new URL(String(url), location.href).pathname.startsWith('/media/');
  const open = XMLHttpRequest.prototype.open;
  const send = XMLHttpRequest.prototype.send;
  const media = new WeakSet<XMLHttpRequest>();
  XMLHttpRequest.prototype.open = function (this: XMLHttpRequest, ...args: unknown[]) {
    if (isMedia(args[1] as string)) media.add(this);
    return (open as (...a: unknown[]) => void).apply(this, args);
  } as typeof XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
    if (media.has(this)) {
      w.__mediaInFlight++;
      this.addEventListener('loadend', () => w.__mediaInFlight--, { once: true });
    }
    return send.call(this, body);
  };
  const fetch = window.fetch;
  window.fetch = function (input: RequestInfo | URL, init?: RequestInit) {
    const url = input instanceof Request ? input.url : input;
    if (!isMedia(url)) return fetch(input, init);
    w.__mediaInFlight++;
    const done = () => w.__mediaInFlight--;
    // In flight until the body is read to its end (or fails).
    return fetch(input, init).then(
      (res) => {
        const body = res.clone();
        body.arrayBuffer().then(done, done);
        return res;
      },
      (error: unknown) => {
        done();
        throw error;
      },
    );
  };
  // The page never clears Resource Timing; room for a long session's entries (the default is 250).
  performance.setResourceTimingBufferSize(5000);
}

/**
 * The origin's record of each finished request, by the id its response carried (never by path and
 * time), and every record the origin holds.
 */
function recordsOf(
  requests: readonly CapturedRequest[],
): Promise<{ byRequest: Map<CapturedRequest, DeliveryRecord>; all: DeliveryRecord[] }> {
  return recordsOfResponses(requests, h2OriginUrl(), { ca: h2Certificate() });
}

function overlaps(a: DeliveryRecord, b: DeliveryRecord): boolean {
  return a !== b && a.startedAt < b.finishedAt && b.startedAt < a.finishedAt;
}

/** Records grouped into runs of overlapping [startedAt, finishedAt]: each group's bytes shared the connection's pace. */
function overlapGroups(records: readonly DeliveryRecord[]): DeliveryRecord[][] {
  const sorted = [...records].sort((a, b) => a.startedAt - b.startedAt);
  const groups: DeliveryRecord[][] = [];
  let end = -Infinity;
  for (const r of sorted) {
    if (r.startedAt < end) groups.at(-1)!.push(r);
    else groups.push([r]);
    end = Math.max(end, r.finishedAt);
  }
  return groups;
}

const kbps = (n: number | undefined) => (n === undefined ? 'unpaced' : `${Math.round(n)} kbps`);
const kindOf = (r: DeliveryRecord) =>
  (r.objectType ?? '?') +
  (r.path
    .match(/seg-(\d+)-(\d+)/)
    ?.slice(1)
    .join('#') ?? '');

/**
 * How the connection's pace was decided for each paced segment: `own` is its own rtp; `kept` and
 * `raised` name the pace of a response in flight when it arrived — one with a smaller record id (ids
 * are allocated on arrival) that finished no earlier than the plugin sent the request (its decision's
 * time, taken in the page before the request left: Playwright's own request event can come later).
 */
function expectPaceFollowsSharedRules(
  pairs: ReadonlyArray<{ request: CapturedRequest; sentAt: number; record: DeliveryRecord }>,
  connection: readonly DeliveryRecord[],
): void {
  for (const { request, sentAt, record } of pairs) {
    const what = `${request.path} (record ${record.id}, rtp ${request.rtp}, applied ${record.appliedPaceKbps}, ${record.paceReason})`;
    const st = request.serverTiming!;
    expect(st.sharedConnection?.reason, `Server-Timing sammy-conn of ${what}`).toBe(record.paceReason);
    expect(st.appliedPaceKbps, `Server-Timing sammy-pace of ${what}`).toBe(record.appliedPaceKbps);
    expect(st.mechanism, `Server-Timing sammy-pace desc of ${what}`).toBe('kernel');
    const concurrent = inFlightWhenSent(connection, record, sentAt);
    // What a failure shows: the records around this one, and when the request was sent.
    const around = connection
      .filter((o) => Math.abs(o.id - record.id) <= 3)
      .map((o) => `#${o.id} ${kindOf(o)} [${o.startedAt}, ${o.finishedAt}] ${o.paceReason}@${o.appliedPaceKbps ?? 'unpaced'}`)
      .join('; ');
    const context = `sent at ${sentAt}, sammy-conn ${st.sharedConnection?.reason};dur=${st.sharedConnection?.concurrent}; records around it: ${around}`;
    const applied = record.appliedPaceKbps!;
    const rtp = request.rtp!;
    switch (record.paceReason) {
      case 'own':
        expect(applied, `own pace of ${what}`).toBe(rtp);
        break;
      case 'kept':
        expect(applied, `kept pace of ${what}: at least its own rtp`).toBeGreaterThanOrEqual(rtp);
        // Soft: the measurements and the idle-connection check below still run and report.
        expect
          .soft(
            concurrent.map((o) => o.appliedPaceKbps),
            `kept pace of ${what}: that of a response in flight (${context})`,
          )
          .toContain(applied);
        break;
      case 'raised':
        expect(applied, `raised pace of ${what}`).toBe(rtp);
        expect
          .soft(
            concurrent.some((o) => o.appliedPaceKbps !== undefined && o.appliedPaceKbps < rtp),
            `raised pace of ${what}: above a response in flight (${context})`,
          )
          .toBe(true);
        break;
      default:
        throw new Error(`no paceReason on the HTTP/2 record of ${what}`);
    }
  }
}

/**
 * The connection, not each stream, is paced: each group of overlapping responses on it (one alone,
 * or video with the audio, init and manifest responses that interleaved) delivered its bytes, over
 * the time the group spanned, at the pace in force: no slower than the group's lowest applied pace
 * (the pace only rises while the connection is busy), no faster than its highest, ±15 %.
 * Only groups in which every response was paced, and large enough to measure (≥ 1 s of sending).
 */
function expectConnectionPaced(connection: readonly DeliveryRecord[]): string[] {
  const lines: string[] = [];
  let measured = 0;
  for (const group of overlapGroups(connection)) {
    const paces = group.map((r) => r.appliedPaceKbps);
    if (paces.some((p) => p === undefined)) continue;
    const lo = Math.min(...(paces as number[]));
    const hi = Math.max(...(paces as number[]));
    const bytes = group.reduce((sum, r) => sum + r.bytes, 0);
    const spanMs = Math.max(...group.map((r) => r.finishedAt)) - Math.min(...group.map((r) => r.startedAt));
    if ((bytes * 8) / lo < MIN_PACED_SEND_MS || spanMs <= 0) continue;
    measured++;
    const achieved = (bytes * 8) / spanMs;
    const alone = group.length === 1 && group[0]!.paceReason === 'own';
    const line =
      `${alone ? 'alone' : `shared by ${group.length}`} [${group.map((r) => `${kindOf(r)}:${r.paceReason}@${r.appliedPaceKbps}`).join(' ')}]: ` +
      `${bytes} B in ${spanMs} ms = ${Math.round(achieved)} kbps, pace ${lo === hi ? lo : `${lo}–${hi}`} kbps (${((achieved / hi) * 100).toFixed(0)} %)`;
    lines.push(line);
    expect(achieved / lo, `achieved/lowest pace, ${line}`).toBeGreaterThanOrEqual(1 - PACE_TOLERANCE);
    expect(achieved / hi, `achieved/highest pace, ${line}`).toBeLessThanOrEqual(1 + PACE_TOLERANCE);
  }
  expect(measured, 'groups of paced responses large enough to measure').toBeGreaterThanOrEqual(3);
  return lines;
}

/**
 * The rule's side of sharing (its samples): each paced video segment's chunk throughput as the plugin
 * measured it, against the connection's pace and what Sammy's rule needs to keep the top rung at the
 * buffer level of that request's decision (Eq. 1: top/β/(1 + B/D); top/β at an empty buffer).
 */
function describeSamples(
  video: ReadonlyArray<{ paired: Paired; record: DeliveryRecord }>,
  connection: readonly DeliveryRecord[],
  log: PageLog,
  rule: { beta: number; lookaheadSeconds: number },
): { lines: string[]; summary: string; belowThreshold: string[] } {
  const top = Math.max(...log.decisions.filter((d) => d.mediaType === 'video').map((d) => d.topVideoBitrateKbps));
  const eq1 = (bufferSeconds: number) => top / rule.beta / (1 + Math.max(0, bufferSeconds) / rule.lookaheadSeconds);
  const rows = video.flatMap(({ paired, record }) => {
    const sample = log.samples.find((s) => s.url === paired.decision.url && s.time >= paired.decision.time);
    if (!sample) return [];
    const sharers = connection.filter((o) => overlaps(o, record));
    const overlapMs = sharers.reduce(
      (sum, o) => sum + Math.max(0, Math.min(o.finishedAt, record.finishedAt) - Math.max(o.startedAt, record.startedAt)),
      0,
    );
    const threshold = eq1(paired.decision.bufferLevelSeconds);
    return [{ record, sample, sharers, overlapMs, threshold, ratio: sample.throughputKbps / record.appliedPaceKbps! }];
  });
  const lines = rows.map(
    ({ record, sample, sharers, overlapMs, threshold, ratio }) =>
      `${kindOf(record)} ${record.bytes} B: sample ${Math.round(sample.throughputKbps)} kbps (${sample.durationMs.toFixed(0)} ms), ` +
      `pace ${record.appliedPaceKbps} (${record.paceReason}), record ${Math.round(record.achievedKbps ?? NaN)} kbps, ` +
      `sample/pace ${ratio.toFixed(3)}, Eq. 1 need ${Math.round(threshold)} kbps, sample/need ${(sample.throughputKbps / threshold).toFixed(2)}` +
      (sharers.length > 0 ? `, shared with ${sharers.map(kindOf).join(' ')} for ${overlapMs} ms` : ', alone'),
  );
  const part = (shared: boolean) => {
    const ratios = rows.filter((r) => r.sharers.length > 0 === shared).map((r) => r.ratio);
    return ratios.length === 0
      ? 'none'
      : `${ratios.length}, sample/pace min ${Math.min(...ratios).toFixed(3)} median ${median(ratios).toFixed(3)}`;
  };
  const all = rows.map((r) => r.ratio);
  const summary =
    `top ${top} kbps, β ${rule.beta}, D ${rule.lookaheadSeconds} s: Eq. 1 need ${Math.round(eq1(0))} kbps at an empty buffer; ` +
    `video samples overlapping another response: ${part(true)}; alone: ${part(false)}; ` +
    `all: min ${Math.min(...all).toFixed(3)} median ${median(all).toFixed(3)}; lowest sample ${Math.round(Math.min(...rows.map((r) => r.sample.throughputKbps)))} kbps`;
  const belowThreshold = rows
    .filter((r) => r.sample.throughputKbps < r.threshold)
    .map((r) => `${r.record.path}: ${Math.round(r.sample.throughputKbps)} kbps < ${Math.round(r.threshold)}`);
  return { lines, summary, belowThreshold };
}

/**
 * Stops the player between two media requests (none in flight), so that nothing is cut off: each
 * player by its own call that stops loading at once (Shaka's `unload` only starts there, and is
 * left to finish on its own).
 */
async function stopPlayerBetweenRequests(page: Page, player: DemoPlayerName): Promise<void> {
  await page.waitForFunction(
    (name) => {
      if ((window as unknown as { __mediaInFlight: number }).__mediaInFlight !== 0) return false;
      const hook = window.sammyDemo!;
      if (hook.playerName !== name) throw new Error(`the demo plays ${hook.playerName}, this test stops ${name}`);
      if (name === 'dashjs') (hook.player as { reset(): void }).reset();
      else if (name === 'shaka') void (hook.player as { unload(): Promise<void> }).unload();
      else (hook.player as { stopLoad(): void }).stopLoad();
      return true;
    },
    player,
    { polling: 5, timeout: 30_000 },
  );
}

/** A request from the page itself, same origin (so the same HTTP/2 connection), without CMCD. */
async function fetchFromPage(page: Page, path: string): Promise<{ serverTiming: string | null; protocol: string; bytes: number }> {
  return page.evaluate(async (p) => {
    const res = await fetch(p, { cache: 'no-store' });
    const bytes = (await res.arrayBuffer()).byteLength;
    const entry = performance.getEntriesByName(new URL(p, location.href).href).at(-1) as PerformanceResourceTiming | undefined;
    return { serverTiming: res.headers.get('server-timing'), protocol: entry?.nextHopProtocol ?? '', bytes };
  }, path);
}

for (const player of DEMO_PLAYERS) {
  test(`${player}: over HTTP/2 every media request shares one connection, paced as a whole; the rule holds the top rung; an idle connection is unpaced again`, async ({
    page,
  }, testInfo) => {
    expect(h2SpkiHash(), 'the certificate hash Chromium was told to trust').not.toBe('');
    const origin = h2OriginUrl();
    expect(new URL(origin).protocol).toBe('https:');
    await page.addInitScript(countMediaInFlight);
    const watched = await watchPage(page, { demoHook: true });
    await page.goto(`${origin}/?${player === 'dashjs' ? '' : `player=${player}&`}sammy=on&cmcd=query`);
    await waitForPlayingVideoSegments(page, PLAYING_VIDEO_SEGMENTS);
    await test.step('the graphs render over HTTP/2; a screenshot is saved', async () => {
      await expectGraphs(page);
      // The page redraws every second: the latest points are drawn by now.
      const shot = await page.screenshot({ fullPage: true, path: testInfo.outputPath(`demo-h2-${player}.png`) });
      await testInfo.attach(`demo-h2-${player}`, { body: shot, contentType: 'image/png' });
    });

    await test.step('stop the player between two requests, the connection idle', () => stopPlayerBetweenRequests(page, player));
    // Nothing was cut off: every request the page sent has come back whole (Playwright reports each a little later).
    await expect
      .poll(() => watched.requests.filter((r) => r.outcome !== 'finished').map((r) => `${r.path}: ${r.outcome}`), {
        message: 'media requests not finished',
      })
      .toEqual([]);
    const requests = [...watched.requests];
    const log = await watched.log();
    expect(log.playerErrors).toEqual([]);
    expect(log.playingAt).toBeDefined();
    const playingAt = log.playingAt!;
    const rule = await page.evaluate(() => {
      const { beta, lookaheadSeconds } = window.sammyDemo!.sammy.parameters;
      return { beta, lookaheadSeconds };
    });
    const { byRequest: records, all: allRecords } = await recordsOf(requests);

    const paired = pairRequests(requests, log);
    const segmentRecords = paired.flatMap((p) => (records.has(p.request) ? [{ paired: p, record: records.get(p.request)! }] : []));

    await test.step('HTTP/2: every media resource, one connection', async () => {
      const protocols = await page.evaluate(() =>
        (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
          .filter((e) => new URL(e.name).pathname.startsWith('/media/'))
          .map((e) => ({ path: new URL(e.name).pathname, protocol: e.nextHopProtocol })),
      );
      expect(protocols.length, 'media resources in Resource Timing').toBeGreaterThanOrEqual(records.size);
      expect(
        protocols.filter((p) => p.protocol !== 'h2'),
        'media resources not fetched over h2',
      ).toEqual([]);
      for (const record of records.values()) expect(record.httpVersion, `httpVersion of ${record.path}`).toBe('2');
      const connections = new Set([...records.values()].map((r) => r.connectionId));
      expect([...connections], 'connections that carried the manifest, init and media segments').toHaveLength(1);
      expect([...connections][0]).toBeDefined();
      expect(cmcdProblems(requests), 'malformed CMCD').toEqual([]);
    });
    const connectionId = [...records.values()][0]!.connectionId;
    // Everything the connection carried, the page's own files included: a group of overlapping responses is the connection's.
    const connection = allRecords.filter((r) => r.connectionId === connectionId);

    await test.step('every playing-phase segment carries rtp and is paced by the shared-connection rules', () => {
      // rtp none before playback started, the pace after it (the initial phase again only during a stall the page saw).
      const { paced } = expectRtpFollowsPlayback(paired, log);
      const after = segmentRecords.filter((s) => paced.includes(s.paired));
      expect(after.filter((s) => s.paired.decision.mediaType === 'video').length).toBeGreaterThanOrEqual(PLAYING_VIDEO_SEGMENTS);
      for (const { paired: p, record } of after) {
        const what = `${p.request.path}, requested ${p.decision.time - playingAt} ms after playback started`;
        expect(record.requestedRtpKbps, `requestedRtpKbps of ${what}`).toBe(p.request.rtp);
        // No unpaced segment while playing, whatever interleaved with it.
        expect(record.appliedPaceKbps, `applied pace of ${what}`).toBeDefined();
        expect(record.mechanism, `mechanism of ${what}`).toBe('kernel');
        expect(record.aborted, `aborted: ${what}`).toBe(false);
        expect(record.objectType, `CMCD ot of ${what}`).toBe(p.decision.mediaType === 'video' ? 'v' : 'a');
      }
      expectPaceFollowsSharedRules(
        after.map((s) => ({ request: s.paired.request, sentAt: s.paired.decision.time, record: s.record })),
        connection,
      );
    });

    await test.step('the connection delivers at its pace, alone or shared', () => {
      const lines = expectConnectionPaced(connection);
      const paced = segmentRecords.filter((s) => s.paired.decision.time > playingAt && s.paired.decision.phase === 'playing');
      const videoPaced = paced.filter((s) => s.paired.decision.mediaType === 'video');
      const withOthers = videoPaced.filter((s) => connection.some((o) => overlaps(o, s.record)));
      const reasons = paced
        .map((s) => s.record.paceReason)
        .reduce<Record<string, number>>((n, r) => ({ ...n, [r!]: (n[r!] ?? 0) + 1 }), {});
      const counts = `${videoPaced.length} paced video segments, ${withOthers.length} overlapped by another response; paced segments' pace reasons ${JSON.stringify(reasons)}`;
      test.info().annotations.push({ type: 'h2 connection groups', description: `${counts}\n${lines.join('\n')}` });
      console.log(`[h2 ${player}] ${counts}\n  ${lines.join('\n  ')}`);
    });

    await test.step("the plugin's samples over a shared connection keep the top rung", () => {
      const playingVideo = segmentRecords.filter(
        (s) => s.paired.decision.mediaType === 'video' && s.paired.decision.phase === 'playing' && s.paired.decision.time > playingAt,
      );
      const { lines, summary, belowThreshold } = describeSamples(playingVideo, connection, log, rule);
      const top = Math.max(...log.decisions.map((d) => d.topVideoBitrateKbps));
      const bitrates = log.decisions
        .filter((d) => d.mediaType === 'video')
        .map((d) => `${d.phase === 'initial' ? 'i' : 'p'}${d.bitrateKbps}`);
      test.info().annotations.push({
        type: 'h2 plugin samples',
        description: `${summary}\n${lines.join('\n')}\nvideo bitrates: ${bitrates.join(' ')}`,
      });
      console.log(
        `[h2 ${player}] ${summary}\n  ${lines.join('\n  ')}\n  video bitrates: ${bitrates.join(' ')}\n  below threshold: ${belowThreshold.join(', ') || 'none'}`,
      );
      // Once the playing phase reaches the top rung on this unconstrained loopback link, it stays there
      // (a stall puts the session back in the initial phase, where the first pick comes from the history).
      const playingDecisions = log.decisions.filter((d) => d.mediaType === 'video' && d.time > playingAt && d.phase === 'playing');
      const firstTop = playingDecisions.findIndex((d) => d.bitrateKbps === top);
      expect(
        firstTop,
        `a playing-phase video decision at the top rung (${top} kbps); bitrates ${bitrates.join(' ')}`,
      ).toBeGreaterThanOrEqual(0);
      expect(
        playingDecisions
          .slice(firstTop)
          .filter((d) => d.bitrateKbps !== top)
          .map((d) => `${d.url}: ${d.bitrateKbps} kbps (estimate ${d.estimateKbps})`),
        'video decisions below the top rung after reaching it',
      ).toEqual([]);
      expect(belowThreshold, `paced video samples below what Eq. 1 needs to keep the top rung at their buffer level; ${summary}`).toEqual(
        [],
      );
    });

    await test.step('an idle connection is unpaced again: a request without rtp gets no pace, on the same connection', async () => {
      const probes: Array<{ path: string; report: PacingReport; protocol: string; bytes: number }> = [];
      const topSegment = paired.filter((p) => p.decision.mediaType === 'video' && p.decision.time > playingAt).at(-1)!.request.path;
      for (const path of [DEFAULT_MANIFEST_PATH, topSegment]) {
        const { serverTiming, protocol, bytes } = await fetchFromPage(page, path);
        expect(serverTiming, `Server-Timing on the page's own fetch of ${path}`).not.toBeNull();
        probes.push({ path, report: parseServerTiming(serverTiming!), protocol, bytes });
      }
      const probeRequests = watched.requests.filter((r) => !requests.includes(r));
      expect(probeRequests.map((r) => r.path)).toEqual(probes.map((p) => p.path));
      for (const r of probeRequests) expect(r.hasCmcd, `CMCD on the page's own fetch of ${r.path}`).toBe(false);
      const probeRecords = (await recordsOf(probeRequests)).byRequest;
      const lines: string[] = [];
      for (const [i, probe] of probes.entries()) {
        const record = probeRecords.get(probeRequests[i]!)!;
        expect(probe.protocol, `protocol of the fetch of ${probe.path}`).toBe('h2');
        expect(probe.report.appliedPaceKbps ?? 0, `sammy-pace of ${probe.path}`).toBe(0);
        expect(probe.report.mechanism, `sammy-pace desc of ${probe.path}`).toBe('none');
        expect(probe.report.sharedConnection, `sammy-conn of ${probe.path}`).toEqual({ reason: 'own', concurrent: 0 });
        expect(record.connectionId, `connection of the fetch of ${probe.path}: the segments' one`).toBe(connectionId);
        expect(record.appliedPaceKbps, `applied pace in the record of ${probe.path}`).toBeUndefined();
        expect(record.mechanism).toBe('none');
        expect(record.paceReason).toBe('own');
        lines.push(
          `${probe.path}: ${record.bytes} B at ${kbps(record.achievedKbps)} (${record.durationMs.toFixed(1)} ms), sammy-pace 0 none, sammy-conn own 0, connection ${record.connectionId}`,
        );
      }
      // Nothing of the last pace stuck to the socket: the large one arrives far above it.
      const lastPace = median(connection.filter((r) => r.appliedPaceKbps !== undefined).map((r) => r.appliedPaceKbps!));
      const segment = probeRecords.get(probeRequests[1]!)!;
      expect(segment.achievedKbps, `unpaced ${segment.path} against the session's median pace ${lastPace} kbps`).toBeGreaterThan(
        3 * lastPace,
      );
      test.info().annotations.push({ type: 'h2 idle connection', description: lines.join('\n') });
      console.log(`[h2 ${player}] idle connection:\n  ${lines.join('\n  ')}`);
    });
    expect(watched.consoleErrors).toEqual([]);
  });
}

/**
 * A page playing the test ladder's HLS playlists with hls.js and sammy-pacing-hlsjs, served for the
 * spec by Playwright at a path of the real origin (so the media are same-origin): hls.js's own
 * script build and the adapter's script-tag bundle (`SammyHls`, dist/sammy.iife.js), both read from
 * the repository, and a page exposing the adapter as `window.sammyDemo` (the hook `watchPage`
 * subscribes to). Also the checks the HLS specs share: the CMCD object type of every request, and
 * the origin's delivery records against the rtp each response carried.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { HLS_MASTER_NAME, mediaSegmentOf, parseMultivariantPlaylist } from '@sammy/test-content';
import { DEFAULT_HLS_MASTER_PATH } from '@sammy/test-content/media-paths';
import { originUrl } from './origin-env.js';
import { REPO_ROOT } from './repo-root.js';
import { median, recordsOfResponses, watchPage, type CapturedRequest, type PageLog, type WatchedPage } from './session.js';

const SCRIPTS = {
  '/__e2e/hls.js': join(REPO_ROOT, 'node_modules', 'hls.js', 'dist', 'hls.min.js'),
  '/__e2e/sammy-hls.js': join(REPO_ROOT, 'player-plugin', 'hlsjs', 'dist', 'sammy.iife.js'),
} as const;

export const HLS_PAGE_PATH = '/__e2e/hlsjs.html';
export const HLS_MASTER_PATH = DEFAULT_HLS_MASTER_PATH;

export interface HlsPageOptions {
  /** Sammy's mode. Default 'sammy'. */
  mode?: 'sammy' | 'pace-only';
  /** hls.js's CMCD transmission (`cmcd.useHeaders`). Default 'query'. */
  cmcd?: 'query' | 'header';
  /** hls.js's CMCD version. Default 1. */
  version?: 1 | 2;
}

/** The page: hls.js with sammyConfig, Sammy attached, fatal hls.js errors and stalls logged. */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>hls.js + Sammy</title></head>
<body>
<video id="video" muted playsinline autoplay width="640" height="360"></video>
<script src="/__e2e/hls.js"></script>
<script src="/__e2e/sammy-hls.js"></script>
<script>
  const params = new URLSearchParams(location.search);
  const video = document.getElementById('video');
  const cmcd = { useHeaders: params.get('cmcd') === 'header', version: Number(params.get('version') || 1) };
  const hls = new Hls(SammyHls.sammyConfig({ cmcd }));
  const sammy = SammyHls.attach(hls, { mode: params.get('mode') === 'pace-only' ? SammyHls.paceOnly : 'sammy', initialHistory: SammyHls.memoryStore() });
  window.sammyDemo = {
    playerName: 'hlsjs',
    player: hls,
    sammy,
    onPlayerError(listener) {
      const onError = (_event, data) => { if (data.fatal) listener(data.type + ': ' + data.details); };
      hls.on(Hls.Events.ERROR, onError);
      return () => hls.off(Hls.Events.ERROR, onError);
    },
  };
  // Absolute: hls.js 1.7.4 builds the multivariant playlist's CMCD with new URL(the URL as given),
  // which throws for a path ("Could not generate manifest CMCD data"): that request would go without CMCD.
  hls.loadSource(new URL('${HLS_MASTER_PATH}', location.href).href);
  hls.attachMedia(video);
</script>
</body></html>
`;

/** The scripts, read once per worker (a rebuild elsewhere cannot swap them between tests). */
let scripts: Map<string, Buffer> | undefined;
function readScripts(): Map<string, Buffer> {
  scripts ??= new Map(
    Object.entries(SCRIPTS).map(([path, file]) => {
      if (!existsSync(file))
        throw new Error(`${file} is missing: run \`npm run build -w sammy-pacing-hlsjs\` (and \`npm install\` for hls.js)`);
      return [path, readFileSync(file)];
    }),
  );
  return scripts;
}

/** Opens the page with the watchers installed; fails clearly when the scripts are not built. */
export async function openHlsPage(page: Page, options: HlsPageOptions = {}): Promise<WatchedPage> {
  const bodies = readScripts();
  const origin = originUrl();
  await page.route(`${origin}/__e2e/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === HLS_PAGE_PATH) return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: PAGE });
    const body = bodies.get(path);
    if (body) return route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body });
    return route.fulfill({ status: 404, body: 'not found' });
  });
  const watched = await watchPage(page, { demoHook: true });
  const query = new URLSearchParams({
    mode: options.mode ?? 'sammy',
    cmcd: options.cmcd ?? 'query',
    version: String(options.version ?? 1),
  });
  await page.goto(`${origin}${HLS_PAGE_PATH}?${query}`);
  return watched;
}

/** The representation id of the audio rendition: its media playlist is media_<id>.m3u8, its segments seg-<id>-*. */
function audioRepresentationId(): string {
  const master = parseMultivariantPlaylist(readFileSync(join(REPO_ROOT, '.cache', 'media', 'default', HLS_MASTER_NAME), 'utf8'));
  const audio = master.renditions.find((r) => r.attributes.TYPE === 'AUDIO');
  const id = audio?.uri ? /media_(\d+)\.m3u8$/.exec(audio.uri)?.[1] : undefined;
  if (id === undefined) throw new Error(`no audio rendition media_<id>.m3u8 in ${HLS_MASTER_NAME}`);
  return id;
}

/** What CMCD `ot` each request must carry: m (playlists), i (init segments), v (video), a (audio). */
export function expectedObjectType(path: string): 'm' | 'i' | 'v' | 'a' | undefined {
  if (path.endsWith('.m3u8')) return 'm';
  if (/\/init-\d+\.m4s$/.test(path)) return 'i';
  const segment = mediaSegmentOf(path);
  if (!segment) return undefined;
  return segment.representationId === audioRepresentationId() ? 'a' : 'v';
}

/** Every media request's CMCD `ot` is right, as the origin receives it: playlists, init segments, video, audio. */
export function objectTypeProblems(requests: readonly CapturedRequest[]): string[] {
  return requests.flatMap((r) => {
    const expected = expectedObjectType(r.path);
    const ot = (r.cmcd.data as { ot?: unknown } | undefined)?.ot;
    return expected !== undefined && ot !== expected ? [`${r.path}: ot=${String(ot)}, expected ${expected}`] : [];
  });
}

/**
 * hls.js 1.7's CMCD v2 payload of an init segment carries `d=0`, which CTA-5004 forbids with `ot=i`
 * (cml-cmcd's validator says so). hls.js's own key, left as it wrote it: not the adapter's doing.
 */
export const HLSJS_V2_INIT_DURATION = /Key "d" must not be present when "ot" is "i"/;

/** ±15 %: kernel pacing lets the first congestion window out unpaced, and the record's clock ends at the last ACK. */
const PACE_TOLERANCE = 0.15;
/** Responses that take ≥ 1 s at their rtp: the unpaced first window weighs little. */
const MIN_PACED_SEND_MS = 1000;

/**
 * The origin's record of each paced request (found by the id its response carried in Server-Timing
 * `sammy-id`, never by path and time): it asked for the rtp the request carried, the kernel paced,
 * and the large responses arrived at that pace within ±15 %.
 */
export async function expectOriginPacedAtRtp(paced: readonly CapturedRequest[], samples: PageLog['samples']): Promise<void> {
  const { byRequest } = await recordsOfResponses(paced, originUrl());
  const large: string[] = [];
  const ratios: number[] = [];
  for (const [request, record] of byRequest) {
    expect(record.requestedRtpKbps, `requestedRtpKbps of ${request.path}`).toBe(request.rtp);
    expect(record.appliedPaceKbps, `appliedPaceKbps of ${request.path}`).toBe(request.rtp);
    expect(record.mechanism).toBe('kernel');
    expect(record.aborted).toBe(false);
    if ((record.bytes * 8) / request.rtp! < MIN_PACED_SEND_MS) continue;
    const inPage = samples.find((s) => new URL(s.url).pathname === request.path)?.throughputKbps;
    // No achieved rate (a delivery too quick to time) fails as NaN.
    const ratio = (record.achievedKbps ?? NaN) / request.rtp!;
    large.push(
      `${request.path}: ${record.bytes} B, achieved ${Math.round(record.achievedKbps ?? NaN)} of ${request.rtp} kbps (page measured ${inPage === undefined ? '?' : Math.round(inPage)} kbps)`,
    );
    ratios.push(ratio);
    // A pace is a ceiling: never faster than asked, whatever the machine's load.
    expect(ratio, `achieved/requested for ${large.at(-1)}`).toBeLessThanOrEqual(1 + PACE_TOLERANCE);
  }
  test.info().annotations.push({ type: 'paced responses checked', description: large.join('; ') });
  expect(large.length, 'paced responses large enough to measure').toBeGreaterThanOrEqual(3);
  // And met: the typical response arrives at its pace. (One response alone may fall short when the
  // shared machine starves the origin's or the browser's process; the median does not.)
  expect(median(ratios), `median achieved/requested of ${large.join('; ')}`).toBeGreaterThanOrEqual(1 - PACE_TOLERANCE);
}

/**
 * Waits until `count` playing-phase video segments large enough to measure a pace on (≥ 1 s at
 * their rtp) have finished downloading.
 */
export async function waitForLargePacedVideo(page: Page, count: number): Promise<void> {
  await page.waitForFunction(
    ([n, minMs]) =>
      (window.__e2e?.samples ?? []).filter(
        (s) => s.mediaType === 'video' && s.paceRateKbps !== undefined && (s.bytes * 8) / s.paceRateKbps >= minMs,
      ).length >= n,
    [count, MIN_PACED_SEND_MS] as const,
    { timeout: 45_000 },
  );
}

/**
 * The lab's player page, player-neutral: the measurements every arm fills alike (window.__lab:
 * chunks with the server's report from Resource Timing, rendered qualities, stalls, Sammy's paces
 * and phases, buffer samples, startup, errors, the HTTP version of every media request) and the
 * play request. The player comes from its own module, imported only for its arms (`?player=`):
 * dashjs.ts (default), shaka.ts, hlsjs.ts; each one sets its player up for `?arm=`.
 *
 * Parameters: `player`, `arm`, `mpd` (the DASH manifest), `m3u8` (the HLS multivariant playlist, for
 * hls.js), `cap` (the flat cap in kbps, computed by the bench from the MPD so it holds for the very
 * first request), `buf` (every player's buffer target, s), `proto` (e.g. `h2`: the HTTP version every
 * media request must go over; each one that does not is recorded as a mismatch, which fails the
 * run), `role`, `start=manual` (the bench presses play).
 */
import { withoutCmcd } from 'sammy-pacing-protocol';
import { DEFAULT_MANIFEST_PATH, MEDIA_PATH } from '@sammy/test-content/media-paths';
import { latestResourceEntry, readResourceReport, StallLog, type ResourceReport } from 'sammy-pacing-protocol/measure';
import type { PageState } from '../src/page-state.js';
import type { ChunkReport, LabPage, LabPlayer, PageParams, SetupPlayer } from './lab-page.js';

/** Each player's module, loaded on demand: a dash.js page never parses Shaka or hls.js. */
const PLAYER_MODULES: Record<string, () => Promise<{ setup: SetupPlayer }>> = {
  dashjs: () => import('./dashjs.js'),
  shaka: () => import('./shaka.js'),
  hlsjs: () => import('./hlsjs.js'),
};

const query = new URLSearchParams(location.search);
const absolute = (url: string): string => new URL(url, location.href).href;
const bufferSeconds = Number(query.get('buf') ?? 'NaN');
const params: PageParams = {
  arm: query.get('arm') ?? 'unpaced',
  mpdUrl: absolute(query.get('mpd') ?? DEFAULT_MANIFEST_PATH),
  m3u8Url: query.has('m3u8') ? absolute(query.get('m3u8')!) : undefined,
  capKbps: Number(query.get('cap') ?? '0'),
  bufferSeconds: bufferSeconds > 0 ? bufferSeconds : undefined,
};
const playerName = query.get('player') ?? 'dashjs';
/** The HTTP version the media must go over (`h2` with the bench's --http2); absent: whatever it is, recorded. */
const expectedProtocol = query.get('proto') ?? undefined;

const epochNow = (): number => performance.timeOrigin + performance.now();

const state: PageState = {
  arm: params.arm,
  role: query.get('role') ?? 'main',
  playRequestedAt: 0,
  stalls: [],
  qualities: [],
  chunks: [],
  paces: [],
  phases: [],
  errors: [],
  ended: false,
  protocols: { expected: expectedProtocol, media: {}, mismatches: [] },
  buffer: [],
};
(window as unknown as { __lab: PageState }).__lab = state;
/** Fills `state.stalls` in place: the bench reads it from `window.__lab`. */
const stalls = new StallLog(state.stalls);

// Resource Timing keeps 250 entries by default; a session has more requests than that.
performance.setResourceTimingBufferSize(100_000);

/**
 * The HTTP version of every completed media request (manifest or playlists, init, segments: same
 * origin, so Resource Timing names it), counted as each entry lands; with `?proto=`, every other one is a mismatch.
 */
const MAX_MISMATCHES = 20;
new PerformanceObserver((list) => {
  const p = state.protocols!;
  for (const e of list.getEntries() as PerformanceResourceTiming[]) {
    const path = new URL(e.name).pathname;
    if (!path.startsWith(`${MEDIA_PATH}/`)) continue;
    const protocol = e.nextHopProtocol;
    p.media[protocol] = (p.media[protocol] ?? 0) + 1;
    if (expectedProtocol !== undefined && protocol !== expectedProtocol && p.mismatches.length < MAX_MISMATCHES) {
      p.mismatches.push(`${protocol || '(none)'} ${path}`);
    }
  }
}).observe({ type: 'resource', buffered: true });

/**
 * The request's Resource Timing entry, with the server's report on it. Its name is the URL as sent,
 * which carries the CMCD query the arm added (Sammy, a player's own CMCD, the flat cap), while a
 * player may report the URL without it.
 */
function serverReport(url: string): (ResourceReport & { protocol: string }) | undefined {
  const entry = latestResourceEntry(performance.getEntriesByType('resource') as PerformanceResourceTiming[], absolute(url), withoutCmcd);
  const report = entry && readResourceReport(entry, performance.timeOrigin);
  return report && { ...report, protocol: entry.nextHopProtocol };
}

const video = document.querySelector('video') as HTMLVideoElement;

/** An error as text: players throw Errors, emit plain objects (Shaka's errors, dash.js's events), or anything. */
function describe(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  try {
    return JSON.stringify(e) ?? String(e);
  } catch {
    return String(e);
  }
}

const page: LabPage = {
  video,
  params,
  chunk(c: ChunkReport) {
    // Resource Timing lands just after the player's callback: read it on the next tick.
    setTimeout(() => {
      const s = serverReport(c.url);
      const end = s?.finishedAt ?? epochNow();
      state.chunks.push({
        url: c.url,
        mediaType: c.mediaType,
        start: s?.requestedAt ?? end,
        end,
        bytes: s?.bytes ?? c.bytes ?? 0,
        bitrateKbps: c.bitrateKbps,
        segmentSeconds: c.segmentSeconds,
        server: s?.report ?? {},
        protocol: s?.protocol,
      });
    }, 50);
  },
  quality(kbps) {
    state.qualities.push({ t: epochNow(), kbps });
  },
  error(e) {
    state.errors.push(describe(e).slice(0, 500));
  },
  sammy(controller) {
    controller.on('phase', (phase) => state.phases.push({ t: epochNow(), phase }));
    controller.on('decision', (d) => {
      if (d.mediaType === 'video')
        state.paces.push({ t: d.time, kbps: d.paceRateKbps, bufferSeconds: d.paceBufferLevelSeconds, phase: d.phase });
    });
  },
};

/** The requests that made up the startup delay, from Resource Timing (names without their query). */
function startupRequests(until: number): PageState['startupRequests'] {
  const origin = performance.timeOrigin;
  return (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
    .filter((e) => origin + e.startTime <= until)
    .map((e) => ({
      name: new URL(e.name).pathname.split('/').pop() ?? e.name,
      start: origin + e.startTime - state.playRequestedAt,
      end: origin + e.responseEnd - state.playRequestedAt,
    }));
}

video.addEventListener('playing', () => {
  const now = epochNow();
  if (state.startedAt === undefined) {
    state.startedAt = now;
    state.startupRequests = startupRequests(now);
  }
  stalls.playing(now);
});
// A stall is a `waiting` after playback started (the startup wait is the startup delay) and before it ended.
video.addEventListener('waiting', () => {
  if (!state.ended) stalls.waiting(epochNow());
});
video.addEventListener('ended', () => (state.ended = true));

/** The play request: the startup delay counts from here. */
function play(player: LabPlayer): void {
  state.playRequestedAt = epochNow();
  Promise.resolve()
    .then(() => player.start())
    .catch((e: unknown) => page.error(e));
  // The buffer over time (for the trace plots): seconds buffered ahead of the playhead.
  setInterval(() => {
    const b = video.buffered;
    const ahead = b.length > 0 ? Math.max(0, b.end(b.length - 1) - video.currentTime) : 0;
    state.buffer!.push({ t: epochNow(), seconds: ahead });
  }, 500);
}

async function setUp(): Promise<LabPlayer | undefined> {
  try {
    const load = PLAYER_MODULES[playerName];
    if (!load) throw new Error(`unknown player ${playerName} (${Object.keys(PLAYER_MODULES).join(', ')})`);
    return await (await load()).setup(page);
  } catch (e) {
    page.error(e);
    return undefined;
  }
}

// The player module is loaded and set up before the play request: page-load work (script compile,
// MediaSource attach for Shaka and hls.js) stays out of the startup delay. `?start=manual`: the bench
// presses play once the page has settled, as a viewer clicks play some time after the page loaded;
// otherwise play at once. A player that failed to set up still gets a play button, so the bench
// waits for playback and fails the run with the page's error.
const player = await setUp();
const pressPlay = (): void => (player ? play(player) : undefined);
if (query.get('start') === 'manual') (window as unknown as { __labPlay: () => void }).__labPlay = pressPlay;
else pressPlay();

/**
 * The lab's player page. One real dash.js 5 player per page; the arm comes from the URL:
 *
 *   ?arm=unpaced       dash.js default ABR, no CMCD: the control
 *   ?arm=dashjs-rtp    dash.js's own CMCD, including its built-in `rtp` formula
 *   ?arm=flat-cap      every request (manifest and startup included) carries rtp = 4 × top bitrate
 *   ?arm=sammy         the Sammy plugin with its defaults
 *   ?arm=pace-only     dash.js's own ABR (DYNAMIC) with Sammy's pace: the plugin's pace-only mode
 *
 * plus `mpd` (manifest URL) and `cap` (the flat cap in kbps, computed by the bench from the MPD so
 * it holds for the very first request), and `proto` (e.g. `h2`: the HTTP version every media request
 * must go over; each one that does not is recorded as a mismatch, which fails the run). The page
 * records what the bench measures into `window.__lab`.
 */
import { DEFAULT_MANIFEST_PATH, MEDIA_PATH, roundRtpKbps, withoutCmcd, writeRtp } from 'sammy-pacing-protocol';
import { latestResourceEntry, readResourceReport, StallLog, type ResourceReport } from 'sammy-pacing-protocol/measure';
import type { PageState } from '../src/page-state.js';
import { attach } from 'sammy-pacing-dashjs';
import { paceOnly } from 'sammy-pacing-dashjs/pace-only';
import { MediaPlayer, type LogLevel } from 'dashjs';

const LOG_LEVEL_WARNING = 3 as LogLevel;

const params = new URLSearchParams(location.search);
const arm = params.get('arm') ?? 'unpaced';
const mpd = params.get('mpd') ?? DEFAULT_MANIFEST_PATH;
const capKbps = Number(params.get('cap') ?? '0');
/** Buffer target for every arm alike (the bench's --buffer-seconds); absent: dash.js defaults. */
const bufferSeconds = Number(params.get('buf') ?? 'NaN');
/** The HTTP version the media must go over (`h2` with the bench's --http2); absent: whatever it is, recorded. */
const expectedProtocol = params.get('proto') ?? undefined;

const epochNow = (): number => performance.timeOrigin + performance.now();

const state: PageState = {
  arm,
  role: params.get('role') ?? 'main',
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
 * The HTTP version of every completed media request (manifest, init, segments: same origin, so
 * Resource Timing names it), counted as each entry lands; with `?proto=`, every other one is a mismatch.
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

const video = document.querySelector('video') as HTMLVideoElement;
const player = MediaPlayer().create();
player.updateSettings({ debug: { logLevel: LOG_LEVEL_WARNING } });
if (bufferSeconds > 0) {
  player.updateSettings({
    streaming: { buffer: { bufferTimeAtTopQuality: bufferSeconds, bufferTimeAtTopQualityLongForm: bufferSeconds, bufferTimeDefault: bufferSeconds } },
  });
}

switch (arm) {
  case 'unpaced':
    break;
  case 'dashjs-rtp':
    // dash.js's CMCD as shipped: all keys, `rtp` from its own formula (rtpSafetyFactor 5).
    player.updateSettings({ streaming: { cmcd: { enabled: true, mode: 'query' } } });
    break;
  case 'flat-cap': {
    if (!(capKbps > 0)) throw new Error('flat-cap needs ?cap=<kbps>');
    const rtp = roundRtpKbps(capKbps);
    player.addRequestInterceptor(async (request) => {
      request.url = writeRtp({ url: request.url, headers: {} }, rtp, 'query').url;
      return request;
    });
    break;
  }
  case 'sammy':
  case 'pace-only': {
    // pace-only: dash.js keeps its own ABR (DYNAMIC: BOLA, throughput, insufficient-buffer, abandon
    // rules); Sammy adds its pace, initial phase and first pick from the history.
    const sammy = attach(player, arm === 'pace-only' ? { enabled: true, mode: paceOnly } : { enabled: true });
    sammy.on('phase', (phase) => state.phases.push({ t: epochNow(), phase }));
    sammy.on('decision', (d) => {
      if (d.mediaType === 'video') state.paces.push({ t: d.time, kbps: d.paceRateKbps, bufferSeconds: d.paceBufferLevelSeconds, phase: d.phase });
    });
    break;
  }
  default:
    throw new Error(`unknown arm ${arm}`);
}

interface FragmentEvent {
  request?: {
    url?: string;
    mediaType?: string;
    type?: string;
    bytesLoaded?: number;
    duration?: number;
    bandwidth?: number;
    representation?: { bandwidth?: number };
  };
}

/**
 * The request's Resource Timing entry, with the server's report on it. Its name is the URL as sent,
 * which carries the CMCD query the arm added (Sammy, dash.js's own CMCD, the flat cap), while
 * dash.js reports the URL without it.
 */
function serverReport(url: string): (ResourceReport & { protocol: string }) | undefined {
  // Entry names are absolute; resolve the player's URL in case it is not.
  const absolute = new URL(url, location.href).href;
  const entry = latestResourceEntry(performance.getEntriesByType('resource') as PerformanceResourceTiming[], absolute, withoutCmcd);
  const report = entry && readResourceReport(entry, performance.timeOrigin);
  return report && { ...report, protocol: entry.nextHopProtocol };
}

player.on('fragmentLoadingCompleted' as never, ((e: FragmentEvent) => {
  const r = e.request;
  if (!r?.url || r.type !== 'MediaSegment') return;
  const url = r.url;
  // Resource Timing lands just after the loader's callback: read it on the next tick.
  setTimeout(() => {
    const s = serverReport(url);
    const end = s?.finishedAt ?? epochNow();
    state.chunks.push({
      url,
      mediaType: r.mediaType ?? '',
      start: s?.requestedAt ?? end,
      end,
      bytes: s?.bytes ?? r.bytesLoaded ?? 0,
      bitrateKbps: (r.bandwidth ?? r.representation?.bandwidth ?? 0) / 1000,
      segmentSeconds: r.duration ?? 0,
      server: s?.report ?? {},
      protocol: s?.protocol,
    });
  }, 50);
}) as never);

player.on('qualityChangeRendered' as never, ((e: { mediaType?: string; newRepresentation?: { bandwidth?: number } }) => {
  if (e.mediaType === 'video' && e.newRepresentation?.bandwidth) state.qualities.push({ t: epochNow(), kbps: e.newRepresentation.bandwidth / 1000 });
}) as never);

player.on('error' as never, ((e: unknown) => state.errors.push(JSON.stringify(e).slice(0, 500))) as never);

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
function play(): void {
  state.playRequestedAt = epochNow();
  player.initialize(video, mpd, true);
  // The buffer over time (for the trace plots): seconds buffered ahead of the playhead.
  setInterval(() => {
    const b = video.buffered;
    const ahead = b.length > 0 ? Math.max(0, b.end(b.length - 1) - video.currentTime) : 0;
    state.buffer!.push({ t: epochNow(), seconds: ahead });
  }, 500);
}
// `?start=manual`: the bench presses play once the page has settled, as a viewer clicks play some
// time after the page loaded, so page-load work (script compile, renderer start) stays out of the
// startup delay. Otherwise play at once.
if (params.get('start') === 'manual') (window as unknown as { __labPlay: () => void }).__labPlay = play;
else play();

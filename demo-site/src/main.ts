import type { DeliveryRecord } from 'sammy-pacing-protocol';
import type { ResourceReport } from 'sammy-pacing-protocol/measure';
import './styles.css';
import { Charts, type Interval } from './charts.js';
import { bindControls } from './controls.js';
import { followDeliveryRecords, OwnRecords } from './delivery-records-feed.js';
import { installDemoHook, type RecordsFeed } from './demo-hook.js';
import { byId } from './dom.js';
import { GraphData } from './graph-data.js';
import { recordEventsUrl, sourceUrl } from './origin-url.js';
import { loadPlayer } from './players/load.js';
import { isSammyConfigError, PLAYER_LABELS, type MediaKind, type SammyDecision, type SegmentSample } from './players/player.js';
import { RequestedSegments } from './requested-segments.js';
import { watchServerTiming } from './server-timing-feed.js';
import { DemoSession } from './session.js';
import { SummaryPanel } from './summary-panel.js';
import { baselineSeconds, parseDemoState, serialiseDemoState } from './url-state.js';

/** The graphs show the last five minutes: long enough to hold a paced and an unpaced run. */
const GRAPH_WINDOW_MS = 5 * 60_000;
const REFRESH_MS = 1000;
const BUFFER_SAMPLE_MS = 500;

const state = parseDemoState(location.search);
/** A first visit plays unpaced for this long, then switches Sammy on: the comparison needs no click. */
const baselineMs = state.sammy ? baselineSeconds(location.search) * 1000 : 0;
/** When the baseline ends (page clock ms), set when playback starts; only read while the baseline is pending. */
let baselineEndsAt: number | undefined;
let baselinePending = baselineMs > 0;
const video = byId('video', HTMLVideoElement);
const status = byId('status', HTMLParagraphElement);
const phaseLabel = byId('phase', HTMLSpanElement);
const deliveryLabel = byId('delivery-source', HTMLSpanElement);
const ccLabel = byId('cc-effective', HTMLElement);
const baselineLabel = byId('baseline', HTMLSpanElement);

const graph = new GraphData();
const requested = new RequestedSegments();
let session = new DemoSession(state.sammy);
let sessionStartedAt = Date.now();
let recordsFeed: RecordsFeed = 'unavailable';
let stopRecords: (() => void) | undefined;

const errorListeners = new Set<(message: string) => void>();

function showPlayerError(message: string): void {
  status.textContent = message;
  for (const listener of errorListeners) listener(message);
}

/** Playback waits for data. Waiting for a seek, or at the very end before the loop, is no rebuffer. */
function onWaiting(): void {
  const atEnd = video.ended || video.currentTime >= video.duration - 0.25;
  if (!video.seeking && !atEnd) session.waiting(Date.now());
}

// Only the chosen player's code is downloaded (a chunk per player).
status.textContent = `Loading ${PLAYER_LABELS[state.player]}…`;
const player = await loadPlayer(state.player, {
  video,
  sammy: { enabled: state.sammy && !baselinePending, cmcdMode: state.cmcd },
  congestionControl: () => state.cc,
  onError: showPlayerError,
  onBuffering(on) {
    if (on) onWaiting();
    else if (session.started) session.playing(Date.now());
  },
}).catch((error: unknown) => {
  status.textContent = `Could not load ${PLAYER_LABELS[state.player]}: ${String(error)}`;
  throw error;
});
const sammy = player.sammy;

function saveState(): void {
  history.replaceState(history.state, '', `${location.pathname}?${serialiseDemoState(state)}${location.hash}`);
}

/** Applies c0 or c1; on refusal returns the plugin's message, and the previous value stays in force. */
function applyMultiplier(name: 'c0' | 'c1', value: number): string | undefined {
  try {
    sammy.update({ [name]: value });
  } catch (error) {
    if (!isSammyConfigError(error)) throw error;
    return `${error.message} Still using ${name} = ${sammy.parameters[name]}.`;
  }
  state[name] = value;
  saveState();
  return undefined;
}

function setRecordsFeed(feed: RecordsFeed): void {
  recordsFeed = feed;
  deliveryLabel.textContent =
    feed === 'following' ? "from the origin's delivery records" : 'none: this origin publishes no delivery records';
}

// The origin's records cover every client: keep this session's own video responses, matched by record id.
const ownRecords = new OwnRecords<MediaKind>((record: DeliveryRecord, kind) => {
  if (kind === 'video' && !record.aborted && record.achievedKbps !== undefined)
    graph.series.achievedRate.push(record.finishedAt, record.achievedKbps);
});

function onRecord(record: DeliveryRecord): void {
  ownRecords.addRecord(record);
}

function onServerTiming({ requestedAt, respondedAt: time, url, report }: ResourceReport): void {
  if (requestedAt < sessionStartedAt) return;
  const kind = requested.kindOf(url);
  if (report.recordId !== undefined && kind !== undefined) ownRecords.addResponse(report.recordId, kind);
  // The server took these TCP figures when it wrote the headers: plot them at the response's first byte.
  // What the server says it used: shows whether it honoured the header (`npm start` honours it; `--no-client-cc` turns that off).
  const cc = report.congestionControl;
  if (cc !== undefined) ccLabel.textContent = state.cc === undefined || state.cc === cc ? `server uses ${cc}` : `server kept ${cc}`;
  if (report.rttMs !== undefined) graph.series.rtt.push(time, report.rttMs);
  if (report.retransmits !== undefined) graph.series.retransmits.push(time, report.retransmits);
  if (report.deliveryRateKbps !== undefined && requested.kindOf(url) === 'video')
    graph.series.tcpDeliveryRate.push(time, report.deliveryRateKbps);
}

function onDecision(d: SammyDecision): void {
  requested.add(d.url, d.mediaType);
  if (d.mediaType !== 'video') return;
  graph.series.paceRate.push(d.time, d.paceRateKbps ?? null);
  graph.series.bitrate.push(d.time, d.bitrateKbps);
  graph.series.topBitrate.push(d.time, d.topVideoBitrateKbps > 0 ? d.topVideoBitrateKbps : null);
}

function onSample(s: SegmentSample): void {
  if (s.mediaType === 'video') graph.series.chunkThroughput.push(s.time, s.throughputKbps);
  session.addChunk(s);
}

/** A new session: (re)loads the manifest and starts the bookkeeping and graphs afresh. */
function startSession(): void {
  stopRecords?.();
  stopRecords = undefined;
  graph.clear();
  requested.clear();
  ownRecords.clear();
  session = new DemoSession(sammy.enabled);
  sessionStartedAt = Date.now();
  status.textContent = '';
  const recordsUrl = recordEventsUrl(state.origin, location.origin);
  setRecordsFeed(recordsUrl ? 'following' : 'unavailable');
  if (recordsUrl) stopRecords = followDeliveryRecords(recordsUrl, onRecord, () => setRecordsFeed('unavailable'));
  session.playRequested(Date.now());
  player.load(sourceUrl(player.format, state.origin, location.origin));
}

function sampleBufferLevel(): void {
  const level = player.bufferLevelSeconds();
  if (level !== undefined && Number.isFinite(level)) graph.series.bufferLevel.push(Date.now(), level);
}

function pacedIntervals(now: number): Interval[] {
  return session.runs
    .all()
    .filter((run) => run.paced)
    .map((run) => ({ start: run.startedAt, end: run.endedAt ?? now }));
}

function showPhase(): void {
  // Sammy never paces the initial phase (start-up, and again after a seek or stall until playback resumes).
  phaseLabel.textContent = sammy.phase === 'initial' ? 'initial phase: unpaced' : 'playing phase';
  phaseLabel.classList.toggle('initial', sammy.phase === 'initial');
}

// Controls: each change applies to the next request and is written to the URL.
const controls = bindControls({ ...state, sammy: sammy.enabled }, sammy.parameters, location.origin, {
  player(name) {
    // One player per page: a new page with the new player, every other setting kept.
    location.assign(`${location.pathname}?${serialiseDemoState({ ...state, player: name })}${location.hash}`);
  },
  sammy(on) {
    // The viewer's own switch (or the baseline's end) ends the baseline.
    baselinePending = false;
    sammy.setEnabled(on);
    session.setPaced(Date.now(), on);
    state.sammy = on;
    saveState();
  },
  multiplier: applyMultiplier,
  congestionControl(cc) {
    state.cc = cc;
    saveState();
  },
  cmcd(mode) {
    sammy.setCmcdMode(mode);
    state.cmcd = mode;
    saveState();
  },
  origin(origin) {
    state.origin = origin;
    saveState();
    startSession();
  },
});
// c0/c1 from the link go through the plugin's checks like typed ones; a refused value is dropped from the URL.
for (const name of ['c0', 'c1'] as const) {
  const value = state[name];
  if (value === undefined) continue;
  const error = applyMultiplier(name, value);
  if (error === undefined) continue;
  state[name] = undefined;
  controls.showRefused(name, value, error);
}
saveState();

sammy.on('decision', onDecision);
sammy.on('sample', onSample);
sammy.on('phase', showPhase);
showPhase();
watchServerTiming(onServerTiming);
// The default ladder is a minute long and the buffer holds half of it: every player loops, so
// segments keep flowing and a paced and an unpaced run can both be watched in one session.
video.addEventListener('playing', () => {
  session.playing(Date.now());
  if (baselinePending && baselineEndsAt === undefined) {
    baselineEndsAt = Date.now() + baselineMs;
    setTimeout(() => {
      if (baselinePending) controls.setSammy(true);
    }, baselineMs);
  }
});
video.addEventListener('waiting', onWaiting);

const charts = new Charts(
  graph,
  {
    rates: byId('chart-rates', HTMLElement),
    delivery: byId('chart-delivery', HTMLElement),
    buffer: byId('chart-buffer', HTMLElement),
    tcp: byId('chart-tcp', HTMLElement),
  },
  { paced: () => pacedIntervals(Date.now()), stalls: () => session.rebuffers.intervals(Date.now()) },
);
const panel = new SummaryPanel();

function showBaseline(now: number): void {
  baselineLabel.textContent = !baselinePending
    ? ''
    : baselineEndsAt === undefined
      ? 'unpaced baseline first'
      : `unpaced baseline: Sammy on in ${Math.max(0, Math.ceil((baselineEndsAt - now) / 1000))} s`;
}

function refresh(): void {
  const now = Date.now();
  showBaseline(now);
  charts.refresh(Math.max(sessionStartedAt, now - GRAPH_WINDOW_MS), now);
  panel.render(session.summary(now));
}

installDemoHook({
  playerName: player.name,
  player: player.raw,
  sammy,
  onPlayerError(listener) {
    errorListeners.add(listener);
    return () => errorListeners.delete(listener);
  },
  series: () => graph.counts(),
  summary: () => session.summary(Date.now()),
  state: () => ({ ...state }),
  deliveryRecords: () => recordsFeed,
});

video.muted = true; // Autoplay is only allowed muted.
startSession();
setInterval(sampleBufferLevel, BUFFER_SAMPLE_MS);
setInterval(refresh, REFRESH_MS);
refresh();

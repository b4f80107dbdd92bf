import { attach, SammyConfigError, type MediaKind, type SammyDecision, type SegmentSample } from 'sammy-pacing-dashjs';
import type { DeliveryRecord } from 'sammy-pacing-protocol';
import './styles.css';
import { Charts, type Interval } from './charts.js';
import { bindControls } from './controls.js';
import { createDashPlayer } from './dash-player.js';
import { followDeliveryRecords, OwnRecords } from './delivery-records-feed.js';
import { installDemoHook, type RecordsFeed } from './demo-hook.js';
import { byId } from './dom.js';
import { GraphData } from './graph-data.js';
import { manifestUrl, recordEventsUrl } from './origin-url.js';
import { RequestedSegments } from './requested-segments.js';
import type { ResourceReport } from 'sammy-pacing-protocol/measure';
import { watchServerTiming } from './server-timing-feed.js';
import { DemoSession } from './session.js';
import { SummaryPanel } from './summary-panel.js';
import { parseDemoState, serialiseDemoState } from './url-state.js';

/** The graphs show the last five minutes: long enough to hold a paced and an unpaced run. */
const GRAPH_WINDOW_MS = 5 * 60_000;
const REFRESH_MS = 1000;
const BUFFER_SAMPLE_MS = 500;

const state = parseDemoState(location.search);
const video = byId('video', HTMLVideoElement);
const status = byId('status', HTMLParagraphElement);
const phaseLabel = byId('phase', HTMLSpanElement);
const deliveryLabel = byId('delivery-source', HTMLSpanElement);
const ccLabel = byId('cc-effective', HTMLElement);

const player = createDashPlayer(() => state.cc);
const sammy = attach(player, { enabled: state.sammy, cmcdMode: state.cmcd });

const graph = new GraphData();
const requested = new RequestedSegments();
let session = new DemoSession(state.sammy);
let sessionStartedAt = Date.now();
let recordsFeed: RecordsFeed = 'unavailable';
let stopRecords: (() => void) | undefined;
let initialised = false;

function saveState(): void {
  history.replaceState(history.state, '', `${location.pathname}?${serialiseDemoState(state)}${location.hash}`);
}

/** Applies c0 or c1; on refusal returns the plugin's message, and the previous value stays in force. */
function applyMultiplier(name: 'c0' | 'c1', value: number): string | undefined {
  try {
    sammy.update({ [name]: value });
  } catch (error) {
    if (!(error instanceof SammyConfigError)) throw error;
    return `${error.message} Still using ${name} = ${sammy.parameters[name]}.`;
  }
  state[name] = value;
  saveState();
  return undefined;
}

function setRecordsFeed(feed: RecordsFeed): void {
  recordsFeed = feed;
  deliveryLabel.textContent = feed === 'following' ? "from the origin's delivery records" : 'none: this origin publishes no delivery records';
}

// The origin's records cover every client: keep this session's own video responses, matched by record id.
const ownRecords = new OwnRecords<MediaKind>((record: DeliveryRecord, kind) => {
  if (kind === 'video' && !record.aborted) graph.series.achievedRate.push(record.finishedAt, record.achievedKbps);
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
  if (report.deliveryRateKbps !== undefined && requested.kindOf(url) === 'video') graph.series.tcpDeliveryRate.push(time, report.deliveryRateKbps);
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
  const url = manifestUrl(state.origin, location.origin);
  session.playRequested(Date.now());
  if (initialised) {
    player.attachSource(url);
  } else {
    player.initialize(video, url, true);
    initialised = true;
  }
}

function sampleBufferLevel(): void {
  if (!initialised || !player.isReady()) return;
  let level: number;
  try {
    level = player.getBufferLength('video');
  } catch {
    return; // No video stream yet.
  }
  if (Number.isFinite(level)) graph.series.bufferLevel.push(Date.now(), level);
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
const controls = bindControls(state, sammy.parameters, {
  sammy(on) {
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
player.on('error', (e) => {
  const detail = (e as { error?: { message?: string; code?: number } }).error;
  status.textContent = `Player error${detail?.code !== undefined ? ` ${detail.code}` : ''}: ${detail?.message ?? 'see the network panel'}`;
});
// The default ladder is a minute long and the buffer holds half of it: loop, so segments keep
// flowing and a paced and an unpaced run can both be watched in one session.
player.on('playbackEnded', () => {
  player.seek(0);
  player.play();
});
video.addEventListener('playing', () => session.playing(Date.now()));
video.addEventListener('waiting', () => {
  // Waiting for a seek, or at the very end before the loop, is no rebuffer.
  const atEnd = video.ended || video.currentTime >= video.duration - 0.25;
  if (!video.seeking && !atEnd) session.waiting(Date.now());
});

const charts = new Charts(
  graph,
  { rates: byId('chart-rates', HTMLElement), buffer: byId('chart-buffer', HTMLElement), tcp: byId('chart-tcp', HTMLElement) },
  { paced: () => pacedIntervals(Date.now()), stalls: () => session.rebuffers.intervals(Date.now()) },
);
const panel = new SummaryPanel();

function refresh(): void {
  const now = Date.now();
  charts.refresh(Math.max(sessionStartedAt, now - GRAPH_WINDOW_MS), now);
  panel.render(session.summary(now));
}

installDemoHook({
  player,
  sammy,
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

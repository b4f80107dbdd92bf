/**
 * One run: a fresh lab server in the server namespace, one neighbour, one video session in a fresh
 * browser context (empty history, as the paper reset it for both arms), measured for a fixed time.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DeliveryRecord } from 'sammy-pacing-protocol';
import { CONGESTION_CONTROL_HEADER, RECORDS_PATH } from 'sammy-pacing-protocol';
import { ARM_SPECS, gameConfig, type Arm, type BenchConfig, type Neighbour } from './config.js';
import type { GameRun } from './game/state.js';
import { closeGame, collectGame, startGame, waitFlowing, type GameSession } from './neighbours/game-stream.js';
import type { LabCertificate } from './lab-certificate.js';
import type { PageState, RawRun, RunTrace, TcpNeighbourResult, HttpFetch, HttpVersion, RunProtocol } from './measurements.js';
import type { LabTrace } from './traces.js';
import { countBy, protocolText, queueDelayMs, startupDelayMs } from './measurements.js';
import { hlsMasterPath } from './media.js';
import { inNs, lastLine, sleep, start, waitForLine, type Child } from './processes.js';
import type { Progress } from './progress.js';
import { QueueMonitor } from './queue-monitor.js';
import { summariseLog } from './game/net-delay.js';
import { nodeScript, PAGE_DIR, LAB_DIR } from './scripts.js';
import { CLIENT_IP, SERVER_IP, type Topology } from './topology.js';

export const SERVER_PORT = 8080;
/** With an edge, the lab server listens here on the server namespace's loopback, behind the edge. */
const BACKEND_PORT = 8081;
const UDP_PORT = 9000;
const IPERF_PORT = 5201;
/** Quiet time between the page's load and the play request. */
const PAGE_SETTLE_MS = 1000;
/** Playback must start within this time, or the run fails. */
const STARTUP_TIMEOUT_MS = 30_000;

export interface RunContext {
  topology: Topology;
  browser: Browser;
  config: BenchConfig;
  /** The flat-cap arm's rtp, kbps (4 × top video bitrate). */
  capKbps: number;
  tmpDir: string;
  progress: Progress;
  /** With --http2: the lab server's certificate (it serves HTTPS, h2 by ALPN; the HTTP neighbour trusts it as its CA). */
  tls?: LabCertificate;
  /** With traces: the trace this run's downlink follows, from the play request on. */
  trace?: PreparedTrace;
  /** With the game neighbour: a Chromium in the server namespace, for the game's sender page. */
  gameBrowser?: Browser;
}

/** The game stream must show frames within this time of its pages' load. */
const GAME_FLOWING_TIMEOUT_MS = 20_000;

/** /proc/loadavg's three averages; undefined where there is none. */
export function loadAverages(): number[] | undefined {
  try {
    return readFileSync('/proc/loadavg', 'utf8').trim().split(/\s+/).slice(0, 3).map(Number);
  } catch {
    return undefined;
  }
}

/** A trace ready for the delay line: its opportunities written once per bench, reused by every arm. */
export interface PreparedTrace {
  lab: LabTrace;
  opportunitiesFile: string;
  sessionMeanMbps: number;
}

/**
 * A run's media did not go over the HTTP version the bench asked for: the comparison it was run for
 * would be meaningless, so the bench stops (after writing what it has), instead of going on.
 */
export class ProtocolMismatchError extends Error {
  override name = 'ProtocolMismatchError';
}

function httpVersion(config: BenchConfig): HttpVersion {
  return config.http2 ? 'h2' : 'http/1.1';
}

/** Where the players and neighbours reach the lab server (or the edge): https:// with --http2. */
export function serverOrigin(config: BenchConfig): string {
  return `${config.http2 ? 'https' : 'http'}://${SERVER_IP}:${SERVER_PORT}`;
}

export function pageUrl(arm: Arm, role: string, ctx: Pick<RunContext, 'config' | 'capKbps'>): string {
  const { player } = ARM_SPECS[arm];
  const q = new URLSearchParams({ player, arm, role, mpd: ctx.config.manifestPath, cap: String(ctx.capKbps), start: 'manual' });
  // hls.js plays the HLS playlists of the same segments, written beside the MPD.
  if (player === 'hlsjs') q.set('m3u8', hlsMasterPath(ctx.config.manifestPath));
  if (ctx.config.bufferSeconds !== undefined) q.set('buf', String(ctx.config.bufferSeconds));
  // The page checks that every media request went over it (Resource Timing nextHopProtocol).
  if (ctx.config.http2) q.set('proto', 'h2');
  return `${serverOrigin(ctx.config)}/lab/index.html?${q}`;
}

/**
 * Why a page's media do not count as having gone over `expected`: some went over another protocol,
 * or none completed to be checked. Undefined when every media request went over `expected`.
 */
export function protocolProblem(page: PageState, expected: HttpVersion, who: string): string | undefined {
  const p = page.protocols;
  if (!p) return `${who}: the page recorded no protocols`;
  const other = Object.fromEntries(Object.entries(p.media).filter(([k]) => k !== expected));
  if (Object.keys(other).length > 0) {
    return `${who}: media requests went over ${protocolText(other)}, not ${expected} (${protocolText(p.media)} in all; first: ${p.mismatches.slice(0, 3).join('; ')})`;
  }
  if (!p.media[expected]) return `${who}: no media request completed, so none went over ${expected}`;
  return undefined;
}

/** The servers of one run: the lab server, and the edge in front of it when there is one. */
interface Servers {
  children: Child[];
  /** The edge's varnishd (management process), to check it is gone after the run. */
  varnishdPid?: number;
}

/**
 * The lab server on SERVER_IP:SERVER_PORT, or with `--edge varnish` on the server namespace's loopback
 * behind varnishd, which then owns SERVER_IP:SERVER_PORT. Every request (page, media, records, the HTTP
 * neighbour's object) goes through the edge.
 */
export async function startServers(ctx: RunContext): Promise<Servers> {
  const edge = ctx.config.edge !== 'none';
  const origin = await startLabServer(ctx, edge ? '127.0.0.1' : SERVER_IP, edge ? BACKEND_PORT : SERVER_PORT);
  if (ctx.config.edge !== 'varnish') return { children: [origin] };
  const [node, ...script] = nodeScript('edge-varnish');
  // TMPDIR: varnishd's -n work dir lands in the bench's tmpdir, which teardown removes whatever happens.
  const varnish = start(
    ...inNs(ctx.topology.server, node as string, [
      ...script,
      '--host',
      SERVER_IP,
      '--port',
      String(SERVER_PORT),
      '--backend-port',
      String(BACKEND_PORT),
    ]),
    { cwd: LAB_DIR, env: { ...process.env, TMPDIR: ctx.tmpDir } },
  );
  try {
    const line = await waitForLine(varnish, (l) => l.includes('"ready"'), 30_000, 'varnishd edge');
    return { children: [origin, varnish], varnishdPid: (JSON.parse(line) as { varnishd: number }).varnishd };
  } catch (err) {
    await Promise.all([varnish.stop(2000), origin.stop(2000)]);
    throw err;
  }
}

async function startLabServer(ctx: RunContext, host: string, port: number): Promise<Child> {
  const [node, ...script] = nodeScript('lab-server');
  const args = [
    ...script,
    '--host',
    host,
    '--port',
    String(port),
    '--media',
    ctx.config.mediaDir,
    '--page',
    PAGE_DIR,
    '--cc',
    ctx.config.cc,
    '--seed',
    String(ctx.config.seed),
    ...(ctx.tls ? ['--tls-cert', ctx.tls.certPath, '--tls-key', ctx.tls.keyPath] : []),
  ];
  const server = start(...inNs(ctx.topology.server, node as string, args), { cwd: LAB_DIR });
  await waitForLine(server, (l) => l.includes('"ready"'), 20_000, 'lab server');
  return server;
}

async function readState(page: Page): Promise<PageState | undefined> {
  return page.evaluate(() => (window as unknown as { __lab?: PageState }).__lab).catch(() => undefined);
}

/** What the startup check and the progress line need from the page while a session runs. */
interface LiveStatus {
  /** From the page's `__lab`; undefined while it has none (or the page could not be read). */
  state?: {
    startedAt?: number;
    /** The page's errors, only until playback starts (for the startup timeout's message). */
    errors: string[];
    chunks: number;
    /** Pace the server applied to the last video chunk, kbps. */
    paceKbps?: number;
    /** Last rendered video quality, kbps. */
    bitrateKbps?: number;
    stalls: number;
    /** Media requests that went over another protocol than the page's `?proto=`. */
    protocolMismatches: string[];
  };
  /** Buffered seconds ahead of the playhead, from the video element. */
  bufferSeconds?: number;
}

/** One small evaluate, instead of copying the whole PageState (every chunk with its server report) each tick. */
async function liveStatus(page: Page): Promise<LiveStatus> {
  return page
    .evaluate((): LiveStatus => {
      const v = document.querySelector('video');
      const bufferSeconds = v && v.buffered.length > 0 ? v.buffered.end(v.buffered.length - 1) - v.currentTime : undefined;
      const lab = (window as unknown as { __lab?: PageState }).__lab;
      if (!lab) return { bufferSeconds };
      return {
        bufferSeconds,
        state: {
          startedAt: lab.startedAt,
          errors: lab.startedAt === undefined ? lab.errors : [],
          chunks: lab.chunks.length,
          paceKbps: lab.chunks.filter((c) => c.mediaType === 'video').at(-1)?.server.appliedPaceKbps,
          bitrateKbps: lab.qualities.at(-1)?.kbps,
          stalls: lab.stalls.length,
          protocolMismatches: lab.protocols?.mismatches ?? [],
        },
      };
    })
    .catch(() => ({}));
}

/**
 * A fresh browser context with the lab page, loaded and settled, then played: the play request is
 * what the startup delay counts from (the page's `__labPlay`).
 */
async function openSession(
  browser: Browser,
  url: string,
  headers: Record<string, string>,
  beforePlay?: () => Promise<void>,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ serviceWorkers: 'block', extraHTTPHeaders: headers });
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load', timeout: 20_000 });
  await page.waitForFunction(() => typeof (window as unknown as { __labPlay?: unknown }).__labPlay === 'function', null, {
    timeout: 10_000,
  });
  await sleep(PAGE_SETTLE_MS);
  await beforePlay?.();
  await page.evaluate(() => (window as unknown as { __labPlay: () => void }).__labPlay());
  return { context, page };
}

function parseIperf(json: string, startedAt: number): TcpNeighbourResult | undefined {
  try {
    const r = JSON.parse(json) as {
      start?: { tcp_mss_default?: number; test_start?: { congestion?: string } };
      intervals?: Array<{ sum: { start: number; end: number; bits_per_second: number } }>;
      end?: {
        sum_sent?: { retransmits?: number; seconds?: number };
        sum_received?: { bits_per_second: number; seconds: number };
        sender_tcp_congestion?: string;
      };
    };
    if (!r.end?.sum_received) return undefined;
    return {
      startedAt,
      seconds: r.end.sum_received.seconds,
      meanMbps: r.end.sum_received.bits_per_second / 1e6,
      retransmits: r.end.sum_sent?.retransmits ?? 0,
      intervals: (r.intervals ?? []).map((i) => ({ t: startedAt + i.sum.end * 1000, mbps: i.sum.bits_per_second / 1e6 })),
      congestionControl: r.end.sender_tcp_congestion ?? '',
    };
  } catch {
    return undefined;
  }
}

/** The UDP neighbour's rate in a run: with a trace and no --udp-mbps, its share of the trace's session mean. */
export function udpRate(config: BenchConfig, trace: PreparedTrace | undefined): number {
  return trace && config.udpShareOfTrace !== undefined ? config.udpShareOfTrace * trace.sessionMeanMbps : config.udpRateMbps;
}

/**
 * A run's name (its JSON file, temporary files, messages): arm-neighbour[-family_trace][-b<buffer target>]-index,
 * the buffer target only when the bench runs several (`bufferSeconds` given).
 */
export function runTag(arm: Arm, neighbour: Neighbour, index: number, trace?: Pick<LabTrace, 'id'>, bufferSeconds?: number): string {
  return `${arm}-${neighbour}${trace ? `-${trace.id.replace(/[^A-Za-z0-9._-]+/g, '_')}` : ''}${bufferSeconds !== undefined ? `-b${bufferSeconds}` : ''}-${index}`;
}

/** Runs one arm × neighbour session and returns everything it measured. */
export async function runOnce(ctx: RunContext, arm: Arm, neighbour: Neighbour, index: number): Promise<RawRun> {
  const { topology: t, config } = ctx;
  if (ctx.trace && !t.traceLink) throw new Error('a trace run needs the topology built with the trace-driven link');
  if (config.http2 && !ctx.tls) throw new Error('--http2 needs the lab certificate in the run context');
  // The lab server pins the congestion control of its sockets itself; Varnish only on request (sammy.vcl
  // honours Sammy-Congestion-Control), and the namespace default cannot be cubic outside the initial
  // namespace. So through the edge every client asks for the bench's algorithm, sent by the browser
  // context (not the page: every arm's player stays as it is).
  const ccHeaders: Record<string, string> = config.edge === 'none' ? {} : { [CONGESTION_CONTROL_HEADER]: config.cc };
  const errors: string[] = [];
  const children: Child[] = [];
  const contexts: BrowserContext[] = [];
  const monitor = new QueueMonitor(t);
  const tag = runTag(arm, neighbour, index, ctx.trace?.lab, config.bufferTargets ? config.bufferSeconds : undefined);
  const udpFile = join(ctx.tmpDir, `${tag}.udp.json`);
  const httpFile = join(ctx.tmpDir, `${tag}.http.json`);
  let udpSender: Child | undefined;
  let udpReceiver: Child | undefined;
  let iperfClient: Child | undefined;
  let iperfStartedAt = 0;
  let httpFetcher: Child | undefined;
  let neighbourPage: Page | undefined;
  let varnishdPid: number | undefined;
  let trace: RunTrace | undefined;
  let traceOn = false;
  let udpRateMbps: number | undefined;
  let game: GameSession | undefined;
  let gameRun: GameRun | undefined;
  const loadStart = loadAverages();
  // The run's part of the delay line's RTP log and of its constant link's stats (home link).
  const rtpFrom = t.delayLine?.rtpLogBytes() ?? 0;
  const runStartedAt = Date.now();
  try {
    const servers = await startServers(ctx);
    children.push(...servers.children);
    varnishdPid = servers.varnishdPid;
    const sessionMs = config.durationSeconds * 1000;

    if (neighbour === 'udp') {
      udpRateMbps = udpRate(config, ctx.trace);
      const [node, ...script] = nodeScript('neighbours/udp-flow');
      udpReceiver = start(
        ...inNs(t.client, node as string, [...script, 'receive', '--bind', CLIENT_IP, '--port', String(UDP_PORT), '--out', udpFile]),
      );
      children.push(udpReceiver);
      await waitForLine(udpReceiver, (l) => l === 'ready', 10_000, 'UDP receiver');
      // Runs from before the play request to past the end: the flow is there the whole session.
      udpSender = start(
        ...inNs(t.server, node as string, [
          ...script,
          'send',
          '--to',
          CLIENT_IP,
          '--port',
          String(UDP_PORT),
          '--rate-mbps',
          String(udpRateMbps),
          '--payload',
          String(config.udpPayloadBytes),
          '--seconds',
          String(config.durationSeconds + 5),
        ]),
      );
      children.push(udpSender);
      await sleep(500);
    }
    if (neighbour === 'tcp') {
      const server = start(...inNs(t.client, 'iperf3', ['-s', '-1', '--forceflush', '-B', CLIENT_IP, '-p', String(IPERF_PORT)]));
      children.push(server);
      await waitForLine(server, (l) => l.includes('Server listening'), 10_000, 'iperf3 server');
    }

    if (neighbour === 'game') {
      if (!ctx.gameBrowser) throw new Error('the game neighbour needs a Chromium in the server namespace (RunContext.gameBrowser)');
      const gc = gameConfig(config);
      game = await startGame({
        clientBrowser: ctx.browser,
        serverBrowser: ctx.gameBrowser,
        origin: serverOrigin(config),
        room: `${tag}-${Date.now()}`,
        settings: { width: gc.width, height: gc.height, fps: gc.fps, maxKbps: gc.maxKbps },
        headers: ccHeaders,
      });
      await waitFlowing(game, GAME_FLOWING_TIMEOUT_MS);
      // The game runs alone first, as a game already going when the film starts (GAME_DEFAULTS).
      await sleep(gc.warmupSeconds * 1000);
    }

    monitor.start();
    // With a trace, its clock starts at the play request: every arm meets the same capacity at the same
    // point of its session. Before (page load, the UDP flow's first packets) the downlink is unlimited.
    const startTrace = async (): Promise<void> => {
      if (!ctx.trace) return;
      if (!t.delayLine) throw new Error('a trace needs the delay line');
      const on = await t.delayLine.setTrace(ctx.trace.opportunitiesFile);
      traceOn = true;
      const l = ctx.trace.lab;
      trace = {
        id: l.id,
        name: l.name,
        family: l.family,
        file: l.file,
        format: l.format,
        meanMbps: l.meanMbps,
        sessionMeanMbps: ctx.trace.sessionMeanMbps,
        linkId: on.id,
        startedAt: on.startedAt,
        opportunities: on.opportunities,
        periodMs: on.periodMs,
        ...(l.scale !== undefined ? { scale: l.scale } : {}),
      };
    };
    const main = await openSession(ctx.browser, pageUrl(arm, 'main', ctx), ccHeaders, startTrace);
    contexts.push(main.context);
    const t0 = Date.now();
    const endAt = t0 + sessionMs;

    let startedAt: number | undefined;
    let lastProgress = 0;
    while (Date.now() < endAt) {
      await sleep(250);
      const now = Date.now();
      // Read at most once per tick: by the startup check, else by the progress line.
      let live: LiveStatus | undefined;
      if (startedAt === undefined) {
        live = await liveStatus(main.page);
        checkLiveProtocol(live, config, tag);
        if (live.state?.startedAt !== undefined) {
          startedAt = live.state.startedAt;
          // Neighbours that start relative to playback.
          if (neighbour === 'http') {
            const [node, ...script] = nodeScript('neighbours/http-fetches');
            httpFetcher = start(
              ...inNs(t.client, node as string, [
                ...script,
                '--url',
                `${serverOrigin(config)}/lab/blob/${config.httpBytes}`,
                ...(ctx.tls ? ['--ca', ctx.tls.certPath] : []),
                '--until',
                String(endAt),
                '--gap-ms',
                String(config.httpGapMs),
                '--max',
                '1000',
                '--out',
                httpFile,
                ...Object.entries(ccHeaders).flatMap(([name, value]) => ['--header', `${name}: ${value}`]),
              ]),
            );
            children.push(httpFetcher);
          }
        } else if (now - t0 > STARTUP_TIMEOUT_MS) {
          throw new Error(
            `${tag}: playback did not start within ${STARTUP_TIMEOUT_MS / 1000} s (${live.state?.errors.join('; ') ?? 'no page state'})`,
          );
        }
      }
      if (startedAt !== undefined && neighbour === 'tcp' && !iperfClient && now >= startedAt + config.tcpStartAfterPlaybackSeconds * 1000) {
        const seconds = Math.floor((endAt - now) / 1000);
        if (seconds >= 2) {
          iperfStartedAt = Date.now();
          iperfClient = start(
            ...inNs(t.server, 'iperf3', [
              '-c',
              CLIENT_IP,
              '-p',
              String(IPERF_PORT),
              '-t',
              String(seconds),
              '-C',
              config.neighbourCc,
              '-J',
              '-i',
              '1',
            ]),
          );
          children.push(iperfClient);
        } else errors.push('session too short for the TCP neighbour');
      }
      if (
        startedAt !== undefined &&
        neighbour === 'video' &&
        !neighbourPage &&
        now >= startedAt + config.videoNeighbourDelaySeconds * 1000
      ) {
        const second = await openSession(ctx.browser, pageUrl('unpaced', 'neighbour', ctx), ccHeaders);
        contexts.push(second.context);
        neighbourPage = second.page;
      }
      if (now - lastProgress >= 1000) {
        lastProgress = now;
        live ??= await liveStatus(main.page);
        checkLiveProtocol(live, config, tag);
        const q = monitor.samples.at(-1);
        ctx.progress.update({
          elapsedSeconds: (now - t0) / 1000,
          durationSeconds: config.durationSeconds,
          started: startedAt !== undefined,
          bufferSeconds: live.bufferSeconds,
          bitrateKbps: live.state?.bitrateKbps,
          chunks: live.state?.chunks,
          paceKbps: live.state?.paceKbps,
          // With a trace the queue is in the delay line (its stats file), not in the tbf.
          queueDelayMs: q && !ctx.trace ? queueDelayMs(q, t.rateMbps) : undefined,
          stalls: live.state?.stalls,
          neighbour: neighbourStatus(neighbour, iperfClient, neighbourPage),
        });
      }
    }

    const page = await readState(main.page);
    if (!page) throw new Error(`${tag}: could not read the page's measurements`);
    const second = neighbourPage ? await readState(neighbourPage) : undefined;
    if (config.http2) {
      // The run is only an HTTP/2 run if every media request of every session went over h2.
      const problem =
        protocolProblem(page, 'h2', `${tag} (--http2)`) ??
        (second ? protocolProblem(second, 'h2', `${tag} second session (--http2)`) : undefined);
      if (problem) throw new ProtocolMismatchError(problem);
    }
    const records = await main.page
      .evaluate(async (path) => (await fetch(path, { cache: 'no-store' })).json() as Promise<DeliveryRecord[]>, RECORDS_PATH)
      .catch((err: Error) => {
        errors.push(`records: ${err.message}`);
        return [] as DeliveryRecord[];
      });
    if (neighbour === 'video' && second && startupDelayMs(second) === undefined) errors.push('second session never started playing');

    if (game) gameRun = await collectGame(game);
    const queue = monitor.stop();
    if (traceOn) {
      await t.delayLine?.traceOff();
      traceOn = false;
    }
    const link = trace
      ? t.delayLine?.readStats(trace.linkId)
      : t.homeQueue
        ? t.delayLine?.readStats(0).filter((s) => s.t >= runStartedAt && s.t <= endAt)
        : undefined;
    const rtpLog = game && t.delayLine && t.delayLine.rtpLogBytes() > 0 ? t.delayLine.readRtpLog(rtpFrom) : undefined;
    const gameNet = rtpLog !== undefined ? summariseLog(rtpLog) : undefined;
    let udp: RawRun['udp'];
    let udpSent: number | undefined;
    if (udpReceiver && udpSender) {
      await udpSender.stop();
      udpSent = (() => {
        try {
          return (JSON.parse(lastLine(udpSender.stdout())) as { sent?: number }).sent;
        } catch {
          return undefined;
        }
      })();
      await udpReceiver.stop();
      udp = JSON.parse(readFileSync(udpFile, 'utf8')) as RawRun['udp'];
    }
    let tcp: TcpNeighbourResult | undefined;
    if (iperfClient) {
      await Promise.race([iperfClient.exited, sleep(5000)]);
      tcp = parseIperf(iperfClient.stdout(), iperfStartedAt);
      if (!tcp) errors.push(`iperf3: ${iperfClient.stderr().slice(-300) || iperfClient.stdout().slice(-300)}`);
    }
    let http: HttpFetch[] | undefined;
    if (httpFetcher) {
      await Promise.race([httpFetcher.exited, sleep(3000)]);
      await httpFetcher.stop();
      http = JSON.parse(readFileSync(httpFile, 'utf8')) as HttpFetch[];
    }
    const protocol: RunProtocol = {
      requested: httpVersion(config),
      media: page.protocols?.media ?? {},
      ...(second ? { neighbourMedia: second.protocols?.media ?? {} } : {}),
      ...(http ? { httpNeighbour: countBy(http.map((f) => f.protocol ?? '')) } : {}),
    };
    return {
      arm,
      neighbour,
      index,
      cc: config.cc,
      edge: config.edge,
      endedAt: endAt,
      page,
      ...(config.bufferSeconds !== undefined ? { bufferSeconds: config.bufferSeconds } : {}),
      neighbourPage: second,
      queue,
      rateMbps: t.rateMbps,
      udp,
      udpSent,
      ...(udpRateMbps !== undefined ? { udpRateMbps } : {}),
      tcp,
      http,
      records,
      errors,
      protocol,
      ...(trace ? { trace, link } : {}),
      ...(t.homeQueue ? { homeQueue: t.homeQueue, link } : {}),
      ...(gameRun ? { game: gameRun } : {}),
      ...(gameNet ? { gameNet, rtpLog } : {}),
      ...(loadStart ? { loadAvg: { start: loadStart, end: loadAverages() ?? [] } } : {}),
    };
  } finally {
    monitor.stop();
    await closeGame(game);
    if (traceOn) await t.delayLine?.traceOff().catch(() => undefined);
    for (const c of contexts) await c.close().catch(() => undefined);
    await Promise.all(children.map((c) => c.stop(2000)));
    // Stopping the edge's process group stops varnishd; make sure, by its pid, before the next run binds the port.
    if (varnishdPid !== undefined) killIfAlive(varnishdPid);
    for (const f of [udpFile, httpFile]) rmSync(f, { force: true });
  }
}

/** With --http2, the first media request seen over another protocol fails the run at once. */
function checkLiveProtocol(live: LiveStatus, config: BenchConfig, tag: string): void {
  const mismatches = live.state?.protocolMismatches ?? [];
  if (config.http2 && mismatches.length > 0) {
    throw new ProtocolMismatchError(`${tag} (--http2): media requests not over h2: ${mismatches.slice(0, 3).join('; ')}`);
  }
}

function killIfAlive(pid: number): void {
  try {
    process.kill(pid, 0);
  } catch {
    return;
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* exited meanwhile */
  }
}

function neighbourStatus(n: Neighbour, iperf: Child | undefined, second: Page | undefined): string {
  switch (n) {
    case 'tcp':
      return iperf ? 'tcp: running' : 'tcp: waiting';
    case 'video':
      return second ? 'video: second session on' : 'video: waiting';
    default:
      return n === 'none' ? '' : `${n}: on`;
  }
}

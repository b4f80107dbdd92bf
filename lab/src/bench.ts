/**
 * The whole bench: build the topology, run every arm × neighbour × run, always tear down, report.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findVarnish } from '@sammy/varnish';
import { launchInNamespace, type NamespacedBrowser } from './browser.js';
import { ARM_LABELS, ARM_SPECS, bufferTargetsOf, configProblem, EDGE_LABELS, NEIGHBOUR_LABELS, type BenchConfig } from './config.js';
import { labCertificate, type LabCertificate } from './lab-certificate.js';
import { runMetrics, type RawRun, type RunMetrics } from './measurements.js';
import { hlsMasterPath, manifestFile } from './media.js';
import { cleanupOnExit, inNs, killAllChildren, lastLine, run, runSync, sleep, start, waitForLine } from './processes.js';
import { Progress } from './progress.js';
import type { BenchEnvironment } from './report.js';
import { writeResults } from './results.js';
import { ProtocolMismatchError, runOnce, runTag, type PreparedTrace, type RunContext } from './run.js';
import { peakMbps, sessionMeanMbps, writeOpportunities } from './traces.js';
import { nodeScript, PAGE_DIR } from './scripts.js';
import { quantile, rng, shuffle } from './stats.js';
import {
  createTopology,
  destroyTopology,
  namesFor,
  namespaceSupport,
  pinNamespaceCongestionControl,
  removeLeftovers,
  SERVER_IP,
  type Topology,
} from './topology.js';

const WARM_UP_SECONDS = 6;

export interface BenchResult {
  dir: string;
  metrics: RunMetrics[];
  runs: RawRun[];
  env: BenchEnvironment;
  reportPath: string;
}

/** Highest video bandwidth in the MPD, kbps: the flat cap must be known before the first request. */
export function topVideoKbps(mpdFile: string): number {
  const xml = readFileSync(mpdFile, 'utf8');
  let top = 0;
  for (const m of xml.matchAll(/<Representation\b[^>]*>/g)) {
    const tag = m[0];
    const isVideo = /mimeType="video\//.test(tag) || /\bwidth="\d+"/.test(tag);
    const bw = /\bbandwidth="(\d+)"/.exec(tag);
    if (isVideo && bw) top = Math.max(top, Number(bw[1]) / 1000);
  }
  if (top === 0) throw new Error(`no video Representation with a bandwidth in ${mpdFile}`);
  return top;
}

async function measureBaseRtt(t: Topology): Promise<{ udpMedian?: number; udpMin?: number }> {
  const [node, ...script] = nodeScript('neighbours/udp-flow');
  const echo = start(...inNs(t.server, node as string, [...script, 'echo', '--bind', SERVER_IP, '--port', '9001']));
  try {
    await waitForLine(echo, (l) => l === 'ready', 10_000, 'UDP echo');
    const out = await run(
      ...inNs(t.client, node as string, [...script, 'ping', '--to', SERVER_IP, '--port', '9001', '--count', '30']),
      20_000,
    );
    const rtts = (JSON.parse(lastLine(out)) as { rttMs?: number[] }).rttMs ?? [];
    // The first round trips include ARP and JIT warm-up.
    const steady = rtts.slice(5);
    return { udpMedian: quantile(steady, 0.5), udpMin: quantile(steady, 0) };
  } finally {
    await echo.stop();
  }
}

function timestamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').replace('Z', '');
}

/** Chromium's flag for trusting exactly the lab certificate's key, never every certificate. */
export function trustKeyArgs(tls: LabCertificate | undefined): string[] {
  return tls ? [`--ignore-certificate-errors-spki-list=${tls.spkiHash}`] : [];
}

/** Measured runs of a bench: arms × neighbours × runs × traces × buffer targets. */
export function benchRunCount(config: BenchConfig): number {
  return config.arms.length * config.neighbours.length * config.runs * (config.traces?.length ?? 1) * bufferTargetsOf(config).length;
}

export async function runBench(config: BenchConfig): Promise<BenchResult> {
  const problem = configProblem(config);
  if (problem) throw new Error(problem);
  const support = namespaceSupport();
  if (!support.ok) throw new Error(`lab bench needs network namespaces: ${support.reason}`);
  if (!existsSync(join(PAGE_DIR, 'index.html'))) throw new Error(`lab page not built (${PAGE_DIR}): npm run build -w @sammy/lab`);
  const mpdFile = manifestFile(config.mediaDir, config.manifestPath);
  if (!existsSync(mpdFile)) throw new Error(`manifest ${mpdFile} not found`);
  if (config.arms.some((a) => ARM_SPECS[a].player === 'hlsjs')) {
    const master = manifestFile(config.mediaDir, hlsMasterPath(config.manifestPath));
    if (!existsSync(master))
      throw new Error(`the hls.js arms play ${master}, which is not there (the content generator writes it beside the MPD)`);
  }
  // Before any namespace exists: a missing varnishd or tcp vmod fails here, with the install command.
  if (config.edge === 'varnish') findVarnish();
  const topKbps = topVideoKbps(mpdFile);
  const capKbps = 4 * topKbps;
  // The certificate names the lab server's address; Chromium trusts its key, the HTTP neighbour it as its CA.
  const tls = config.http2 ? await labCertificate(SERVER_IP) : undefined;

  const leftovers = removeLeftovers();
  const progress = new Progress(benchRunCount(config), config.plainProgress);
  if (leftovers.length) progress.log(`removed leftovers of an earlier run: ${leftovers.join(', ')}`);

  const dir = join(config.resultsDir, timestamp());
  mkdirSync(join(dir, 'runs'), { recursive: true });
  mkdirSync(join(dir, 'plots'), { recursive: true });
  const tmpDir = mkdtempSync(join(tmpdir(), 'sammy-lab-'));

  // Teardown must happen on every exit path: normal, exception, Ctrl-C, SIGTERM.
  const names = namesFor(process.pid);
  let browser: NamespacedBrowser | undefined;
  let gameBrowser: NamespacedBrowser | undefined;
  let topologyDelay: Topology['delayLine'];
  const teardown = cleanupOnExit(
    () => {
      killAllChildren();
      destroyTopology(names);
      rmSync(tmpDir, { recursive: true, force: true });
    },
    (line) => progress.log(line),
  );

  const env: BenchEnvironment = {
    queueBytes: config.queueBytes,
    rateMbps: config.rateMbps,
    burstBytes: 0,
    topVideoKbps: topKbps,
    capKbps,
    cc: config.cc,
    ccPinnedBy: '',
    edge: EDGE_LABELS[config.edge],
    http: tls
      ? `HTTPS, HTTP/2 by ALPN (h2; http/1.1 offered too), node:http2's secure server; the lab certificate (${tls.certPath}, EC P-256, self-signed, naming ${SERVER_IP}) ` +
        `trusted by Chromium through --ignore-certificate-errors-spki-list=${tls.spkiHash} (that key only) and by the HTTP neighbour (node:http2 client) as its only CA`
      : 'plain HTTP/1.1 (node:http), no TLS',
    kernel: release(),
    chromium: '',
    startedAt: new Date().toISOString(),
    failedRuns: [],
  };
  // Traces: each one's opportunities written once (the session plus a margin; shorter traces loop).
  const prepared: Array<PreparedTrace | undefined> = config.traces
    ? config.traces.map((lab) => ({
        lab,
        opportunitiesFile: writeOpportunities(lab, config.durationSeconds + 30, tmpDir),
        sessionMeanMbps: sessionMeanMbps(lab.trace, config.durationSeconds),
      }))
    : [undefined];
  if (config.traces) {
    env.traces = prepared.map((p) => ({
      id: p!.lab.id,
      family: p!.lab.family,
      file: p!.lab.file,
      format: p!.lab.format,
      periodSeconds: p!.lab.periodSeconds,
      meanMbps: p!.lab.meanMbps,
      sessionMeanMbps: p!.sessionMeanMbps,
      peakMbps: peakMbps(p!.lab.trace),
      ...(p!.lab.scale !== undefined ? { scale: p!.lab.scale } : {}),
    }));
  }
  const raw: RawRun[] = [];
  const metrics: RunMetrics[] = [];
  let fatal: Error | undefined;
  const wallStart = Date.now();
  try {
    const topology = await createTopology({
      rateMbps: config.rateMbps,
      queueBytes: config.queueBytes,
      rttMs: config.rttMs,
      ...(config.traces ? { traceStatsFile: join(tmpDir, 'link-stats.jsonl') } : {}),
      ...(config.homeQueue ? { home: { queue: config.homeQueue, statsFile: join(tmpDir, 'link-stats.jsonl') } } : {}),
      // The game's packets, logged where the link is in the delay line (game/net-delay.ts).
      ...((config.traces || config.homeQueue) && config.neighbours.includes('game') ? { rtpLogFile: join(tmpDir, 'rtp.log') } : {}),
    });
    env.burstBytes = topology.burstBytes;
    env.addedRttMs = topology.rttMs;
    topologyDelay = topology.delayLine;
    const nsDefault = await pinNamespaceCongestionControl(topology.server, config.cc);
    env.ccPinnedBy =
      config.edge === 'varnish'
        ? `per client socket by Varnish (sammy.vcl's tcp.congestion_algorithm, asked for by every client with the Sammy-Congestion-Control header)${nsDefault ? ' and the server namespace default (sysctl)' : ''}; the origin behind it pins its own (backend hop)`
        : nsDefault
          ? 'server namespace default (sysctl) and per socket (origin middleware)'
          : 'per socket by the origin middleware (TCP_CONGESTION); the namespace default cannot be set to it outside the initial namespace';
    env.baseRttMs = await measureBaseRtt(topology);
    progress.log(
      `topology up: ${config.traces ? `downlink trace-driven (${config.traces.length} trace(s)), uplink ${config.rateMbps} Mbit/s` : config.homeQueue ? `home link ${config.rateMbps} Mbit/s, queue ${config.homeQueue} (in the delay line)` : `${config.rateMbps} Mbit/s`}, queue ${config.queueBytes} B, delay line ${config.rttMs} ms, base RTT ${env.baseRttMs.udpMedian?.toFixed(3)} ms; ` +
        `server cc ${config.cc}; top video ${topKbps} kbps; edge ${config.edge}; ${tls ? 'HTTP/2 over TLS (h2)' : 'HTTP/1.1'}`,
    );
    browser = await launchInNamespace(topology.client, trustKeyArgs(tls));
    env.chromium = `Chromium ${browser.browser.version()}`;
    // The game neighbour's sender runs in the server namespace, in a Chromium of its own.
    if (config.neighbours.includes('game')) gameBrowser = await launchInNamespace(topology.server, trustKeyArgs(tls));
    const ctx: RunContext = {
      topology,
      browser: browser.browser,
      config,
      capKbps,
      tmpDir,
      progress,
      tls,
      gameBrowser: gameBrowser?.browser,
    };

    // The browser's first page load is slower (cold caches, code compilation): one unmeasured
    // session first, so no arm's first run pays for it.
    progress.log('warm-up: one short unmeasured session');
    await runOnce({ ...ctx, config: { ...config, durationSeconds: WARM_UP_SECONDS } }, 'unpaced', 'none', 0).catch((err: Error) =>
      progress.log(`warm-up failed (measured runs go on): ${err.message.split('\n')[0]}`),
    );

    // Runs interleave arms (seeded order) and buffer targets so slow drifts of the machine hit every arm alike.
    const random = rng(config.seed);
    const buffers = bufferTargetsOf(config);
    runs: for (let index = 1; index <= config.runs; index++) {
      for (const neighbour of config.neighbours) {
        for (const trace of prepared) {
          for (const bufferSeconds of buffers) {
            for (const arm of shuffle(config.arms, random)) {
              progress.beginRun(
                `${ARM_LABELS[arm]} × ${NEIGHBOUR_LABELS[neighbour]}${trace ? ` × trace ${trace.lab.id} (${trace.sessionMeanMbps.toFixed(1)} Mbit/s)` : ''}` +
                  `${config.bufferTargets ? ` × buffer ${bufferSeconds} s` : ''} #${index}`,
              );
              try {
                const r = await runOnce({ ...ctx, trace, config: { ...config, bufferSeconds } }, arm, neighbour, index);
                const runFile = join(
                  dir,
                  'runs',
                  runTag(arm, neighbour, index, trace?.lab, config.bufferTargets ? bufferSeconds : undefined),
                );
                // The game's packets as the router logged them: kept whole, for another look at the run.
                if (r.rtpLog !== undefined) writeFileSync(`${runFile}.rtp.log`, r.rtpLog);
                delete r.rtpLog;
                raw.push(r);
                writeFileSync(`${runFile}.json`, JSON.stringify(r));
                const m = runMetrics(r);
                metrics.push(m);
                progress.endRun(
                  `startup ${m.startupDelayMs?.toFixed(0)} ms, chunk thr. ${m.chunkThroughputMbps?.toFixed(1)} Mbps, ` +
                    `bitrate ${m.meanBitrateKbps?.toFixed(0)} kbps, rebuffers ${m.rebufferCount}` +
                    (m.neighbourMetric
                      ? `, ${m.neighbourMetric.name} p50 ${m.neighbourMetric.p50?.toFixed(2)} ${m.neighbourMetric.unit}`
                      : '') +
                    (m.gameNet
                      ? ` network p50/p95 ${m.gameNet.p50Ms?.toFixed(1)}/${m.gameNet.p95Ms?.toFixed(1)} ms (alone ${m.gameNetAlone?.p95Ms?.toFixed(1) ?? '—'}), loss ${((m.gameNet.packetLossShare ?? 0) * 100).toFixed(2)} %;`
                      : '') +
                    (m.game
                      ? ` p95 ${m.game.latencyP95Ms?.toFixed(1)} ms (alone ${m.gameAlone?.latencyP95Ms?.toFixed(1) ?? '—'}), ${m.game.framesShown} frames, ${m.game.receivedMbps?.toFixed(1)} Mbps, freezes ${m.game.freezes ?? '—'}, ${m.game.cpuLimited ? 'CPU-LIMITED' : `cpu-limited ${((m.game.cpuLimitedShare ?? 0) * 100).toFixed(0)} %`}, load ${m.loadAvg1?.toFixed(2)}`
                      : '') +
                    (m.link
                      ? `; link: trace ${m.link.traceMbps.toFixed(2)} Mbit/s, released ${m.link.releasedMbps.toFixed(2)}, saturated seconds ${m.link.saturatedBins} at ×${m.link.saturatedRatioMedian?.toFixed(3) ?? '—'}`
                      : ''),
                );
              } catch (err) {
                const error = (err as Error).message;
                env.failedRuns.push({
                  arm,
                  neighbour,
                  index,
                  error,
                  ...(trace ? { trace: trace.lab.id } : {}),
                  ...(config.bufferTargets ? { bufferSeconds } : {}),
                });
                progress.endRun(`FAILED: ${error.split('\n')[0]}`);
                // Not over the HTTP asked for: every further run would be too. Stop, report, and fail.
                if (err instanceof ProtocolMismatchError) {
                  fatal = err;
                  break runs;
                }
              }
              await sleep(500);
            }
          }
        }
      }
    }
  } finally {
    await gameBrowser?.close();
    await browser?.close();
    const delayStats = await topologyDelay?.stop().catch(() => '');
    if (delayStats) env.delayLine = delayStats;
    teardown();
  }
  env.wallSeconds = (Date.now() - wallStart) / 1000;
  const tcpMin = quantile(
    raw.flatMap((r) => r.page.chunks.map((c) => c.server.minRttMs ?? NaN)),
    0,
  );
  if (env.baseRttMs && tcpMin !== undefined) env.baseRttMs.tcpMinRtt = tcpMin;

  const reportPath = await writeResults({ dir, config, env, raw, metrics, log: (line) => progress.log(line) });
  progress.log(`report: ${reportPath}`);
  if (fatal) throw new Error(`${fatal.message}; stopped after this run (report: ${reportPath})`);
  return { dir, metrics, runs: raw, env, reportPath };
}

/** Whether the namespaces this process made are gone (for the smoke test). */
export function ownNamespacesGone(): boolean {
  const out = runSync('ip', ['netns', 'list']);
  const n = namesFor(process.pid);
  return ![n.server, n.router, n.client].some((name) => out.includes(name));
}

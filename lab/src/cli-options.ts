/**
 * The bench's command line: flags → BenchConfig, with every refusal (unknown names, bad numbers,
 * flags that cannot go together) before anything is set up. Separate from cli.ts so tests can call it.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CONGESTION_CONTROLS, isCongestionControl } from 'sammy-pacing-protocol';
import { HLS_MASTER_NAME } from '@sammy/test-content/media-paths';
import {
  ARMS,
  BOTTLENECK_MBPS,
  GAME_DEFAULTS,
  DEFAULT_ARMS,
  TRACE_ARMS,
  TRACE_MAX_PEAK_MBPS,
  TRACE_TBF_MBPS,
  UDP_SHARE_OF_TRACE,
  isArm,
  isNeighbour,
  NEIGHBOURS,
  PAPER_BDP_BYTES,
  DEFAULT_BUFFER_SECONDS,
  DEFAULT_DURATION_SECONDS,
  DEFAULT_TRACE_DURATION_SECONDS,
  DEFAULT_RUNS,
  EDGES,
  isEdge,
  PAPER_NEIGHBOURS,
  PAPER_RTT_MS,
  QUEUE_BDP_MULTIPLE,
  type BenchConfig,
  configProblem,
} from './config.js';
import {
  DEFAULT_MANIFEST_PATH,
  DEFAULT_MEDIA_ROOT,
  FILM_4K_MANIFEST_PATH,
  isMediaName,
  LAB_LADDER,
  labLadderManifestPath,
  MEDIA_NAMES,
} from './media.js';
import { HOME_LINK, HOME_QUEUES, HOME_QUEUE_SPECS, parseLinkFlags } from './home-link.js';
import { LAB_DIR } from './scripts.js';
import { loadTrace, loadTraceDir, peakMbps, selectTraces, type LabTrace } from './traces.js';
import { parseTraceScale, scaleLabTrace } from './trace-scale.js';

export const HELP = `Sammy lab bench: real Chromium + dash.js, Shaka Player or hls.js behind a ${BOTTLENECK_MBPS} Mbit/s bottleneck, one neighbour at a time.
Linux, root (it creates network namespaces, and always removes them).

usage: npm run bench:lab -- [flags]

  --runs N           runs per arm × neighbour (default ${DEFAULT_RUNS})
  --duration S       seconds per session from the play request (default ${DEFAULT_DURATION_SECONDS}; with --trace/--traces ${DEFAULT_TRACE_DURATION_SECONDS})
  --arms LIST        comma-separated: ${ARMS.join(', ')}
                     (default ${DEFAULT_ARMS.join(',')}; with --trace/--traces ${TRACE_ARMS.join(',')});
                     shaka-*: Shaka Player 5 on the MPD, hlsjs-*: hls.js on the ${HLS_MASTER_NAME} beside it,
                     the rest dash.js 5; each is compared with its own player's unpaced arm
  --neighbours LIST  comma-separated: ${NEIGHBOURS.join(', ')} (default udp,tcp,http,video)
  --edge NAME        what the players connect to: ${EDGES.join(', ')} (default none: the lab's origin itself;
                     varnish: varnishd with origin/varnish/sammy.vcl in front of it, in the server namespace)
  --http2            HTTPS with HTTP/2: the lab server speaks h2 (ALPN) with a lab certificate naming its address
                     (cached in .cache/lab/tls); Chromium trusts exactly that key (--ignore-certificate-errors-spki-list),
                     the HTTP neighbour fetches over h2 trusting it as its CA; a run whose media did not all go over
                     h2 fails and stops the bench. Not with --edge varnish (no TLS there). Default: plain HTTP/1.1
  --cc NAME          server congestion control: ${CONGESTION_CONTROLS.join(', ')} (default cubic)
  --neighbour-cc N   bulk TCP neighbour's congestion control (default reno, as in the paper)
  --seed N           seed for run order and the HTTP object's bytes (default 1)
  --queue BYTES      bottleneck queue (default ${QUEUE_BDP_MULTIPLE} × ${PAPER_BDP_BYTES} = ${QUEUE_BDP_MULTIPLE * PAPER_BDP_BYTES}, the paper's 4 × BDP at 5 ms)
  --link NAME        paper (default: the flags above) or home: the talk's home link, ${HOME_LINK.rateMbps} Mbit/s with a ${HOME_LINK.rttMs} ms base RTT,
                     the downlink's queue in the router's delay line (the kernel has no netem/fq_codel);
                     with it --queue is a kind: ${HOME_QUEUES.join(', ')} (default fifo-2bdp)
  --rate MBPS        bottleneck rate (default ${BOTTLENECK_MBPS})
  --trace FILE       trace-driven bottleneck: the downlink (server → client) follows this bandwidth trace, mahimahi
                     (one ms timestamp per 1500-byte delivery opportunity) or [seconds Mbps] lines (Pensieve, FCC,
                     HSDPA, Puffer, Oboe), detected from the file; replayed by the delay line as mahimahi's mm-link
                     does, with a drop-tail queue of --queue bytes, from each play request, looped if shorter than
                     the session. Not with --rate: the uplink stays at ${BOTTLENECK_MBPS} Mbit/s, and the downlink's tbf
                     sits at ${TRACE_TBF_MBPS} Mbit/s, far above the trace, only counting what leaves
  --traces DIR       every trace file in DIR, each run on every arm × neighbour × run; a file's family is its
                     sub-folder (DIR/<family>/…), or for files directly in DIR its name up to the first _ - or .
                     (README*, LICENSE*, *.md and hidden files are skipped). E.g. --traces ../shared/traces
  --families LIST    with --traces: only these families (comma-separated sub-folder names)
  --traces-per-family N  with --traces: at most N traces per family, spread over its range (sorted by their
                     mean over the session, the middle of N equal shares; 1: the median trace)
  --trace-scale F    with --trace/--traces: every rate of each trace × F (a positive number), a real link's shape at
                     another mean (e.g. nyc-lte × 0.55 ≈ 1.2 × the top); its family and id are marked ×F, the report and
                     runs.csv give the scaled means. --families and --traces-per-family pick by the file's own rates
  --udp-mbps R       the UDP neighbour's rate (default ${PAPER_NEIGHBOURS.udpRateMbps}, the paper's; with --trace/--traces 1/8 of each
                     trace's mean over the session, as the paper's 5 of 40 Mbit/s: 5 Mbit/s would fill a slow trace alone)
  --game-mbps R      the game neighbour's maxBitrate, Mbit/s (default ${GAME_DEFAULTS.linkShare * 100} % of --rate)
  --game-fps N       the game's frame rate (default ${GAME_DEFAULTS.fps})
  --game-size WxH    the game's frame size (default ${GAME_DEFAULTS.width}x${GAME_DEFAULTS.height})
  --game-warmup S    the game runs alone this long before the play request (default ${GAME_DEFAULTS.warmupSeconds})
  --rtt-ms MS        round-trip propagation delay added by the router's delay line (default ${PAPER_RTT_MS}, the paper's; 0: none)
  --buffer-seconds S   buffer target of every arm's player (default ${DEFAULT_BUFFER_SECONDS}: a production-like deep
                       buffer, as the paper's control had; dash.js's own is 30 s at top quality, Shaka's 10 s, hls.js's 30 s);
                       several, comma-separated (e.g. 30,240): every run is made at each, and the report splits by target
  --content-seconds S  length of the lab ladder (default ${LAB_LADDER.durationS}; encoded once, cached)
  --media NAME       what the film is: lab (default: the lab ladder, 3.3 Mbit/s top, the paper's) or 4k (a 4K-like
                     ladder, 750 kbps to 15.6 Mbit/s, 4 s segments, 240 s; encoded once, cached in .cache/media/film-4k)
  --media-dir DIR    directory served at /media (default ${DEFAULT_MEDIA_ROOT})
  --manifest PATH    play another ladder (e.g. ${DEFAULT_MANIFEST_PATH}, the origin's 60 s, 6 Mbps-top ladder)
  --results DIR      where results/<timestamp>/ goes (default lab/results)
  --plain            progress as plain lines (no redrawn status line)
  -h, --help         this text

Writes report.md (tables next to the paper's numbers and the issue's targets), plots/*.png and *.svg,
runs/*.json (raw), runs.csv and summary.json.`;

function list<T extends string>(
  value: string | undefined,
  all: readonly T[],
  fallback: readonly T[],
  is: (v: string) => v is T,
  what: string,
): T[] {
  if (value === undefined) return [...fallback];
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const i of items) if (!is(i)) throw new Error(`unknown ${what} "${i}" (choose from ${all.join(', ')})`);
  return items as T[];
}

/** A numeric flag's value, or `fallback` when absent: positive, or ≥ 0 with `allowZero`. */
function positive(value: string | undefined, fallback: number, what: string, { allowZero = false } = {}): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !allowZero)) {
    throw new Error(allowZero ? `--${what} must be a number ≥ 0, got ${value}` : `--${what} must be a positive number, got ${value}`);
  }
  return n;
}

export type CliParse = { help: true } | { help: false; config: BenchConfig };

/**
 * The folder relative paths on the command line mean: the one `npm run` was typed in (npm's INIT_CWD), since npm
 * runs a workspace's script in the workspace's folder; `npm run bench:lab -- --traces ../shared/traces` from the
 * repository's root then reads the traces beside the clone, as the README's commands say.
 */
export function invocationDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.INIT_CWD ?? process.cwd();
}

/**
 * The bench's flags (`process.argv.slice(2)`) as a config; throws, with what to change, on anything it cannot run.
 * Relative paths (--trace, --traces, --media-dir, --results) are resolved against `cwd`.
 */
export function parseCliArgs(args: string[], cwd: string = invocationDir()): CliParse {
  const { values } = parseArgs({
    args,
    options: {
      runs: { type: 'string' },
      duration: { type: 'string' },
      arms: { type: 'string' },
      neighbours: { type: 'string' },
      edge: { type: 'string' },
      http2: { type: 'boolean' },
      cc: { type: 'string' },
      'neighbour-cc': { type: 'string' },
      seed: { type: 'string' },
      queue: { type: 'string' },
      rate: { type: 'string' },
      'rtt-ms': { type: 'string' },
      'media-dir': { type: 'string' },
      manifest: { type: 'string' },
      'content-seconds': { type: 'string' },
      'buffer-seconds': { type: 'string' },
      results: { type: 'string' },
      plain: { type: 'boolean' },
      trace: { type: 'string' },
      traces: { type: 'string' },
      families: { type: 'string' },
      'traces-per-family': { type: 'string' },
      'trace-scale': { type: 'string' },
      'udp-mbps': { type: 'string' },
      'game-mbps': { type: 'string' },
      'game-fps': { type: 'string' },
      'game-size': { type: 'string' },
      'game-warmup': { type: 'string' },
      link: { type: 'string' },
      media: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  const cc = values.cc ?? 'cubic';
  const neighbourCc = values['neighbour-cc'] ?? 'reno';
  if (!isCongestionControl(cc)) throw new Error(`--cc must be one of ${CONGESTION_CONTROLS.join(', ')}`);
  if (!isCongestionControl(neighbourCc)) throw new Error(`--neighbour-cc must be one of ${CONGESTION_CONTROLS.join(', ')}`);
  if (values.media !== undefined && !isMediaName(values.media))
    throw new Error(`--media must be one of ${MEDIA_NAMES.join(', ')}, got ${values.media}`);
  const film4k = values.media === '4k';
  if (film4k && (values.manifest !== undefined || values['content-seconds'] !== undefined))
    throw new Error('--media 4k is its own ladder; it cannot go with --manifest or --content-seconds');
  if (values.manifest !== undefined && values['content-seconds'] !== undefined)
    throw new Error("--content-seconds sets the lab ladder's length; it cannot go with --manifest");
  const edge = values.edge ?? 'none';
  if (!isEdge(edge)) throw new Error(`--edge must be one of ${EDGES.join(', ')}, got ${edge}`);
  if (values.trace !== undefined && values.traces !== undefined)
    throw new Error('--trace and --traces cannot go together: give one file or one folder');
  if ((values.trace ?? values.traces) !== undefined && values.rate !== undefined) {
    throw new Error(
      `--rate sets the constant bottleneck; with ${values.trace !== undefined ? '--trace' : '--traces'} the trace sets the downlink's rate (leave --rate out)`,
    );
  }
  for (const flag of ['families', 'traces-per-family'] as const) {
    if (values[flag] !== undefined && values.traces === undefined)
      throw new Error(`--${flag} picks traces of --traces DIR; give --traces too`);
  }
  const { home } = parseLinkFlags(values.link, values.queue, {
    rate: values.rate !== undefined,
    rttMs: values['rtt-ms'] !== undefined,
    trace: (values.trace ?? values.traces) !== undefined,
  });
  if (values['trace-scale'] !== undefined && values.trace === undefined && values.traces === undefined)
    throw new Error('--trace-scale scales a trace-driven link; give --trace FILE or --traces DIR too');
  const traceScale = values['trace-scale'] === undefined ? undefined : parseTraceScale(values['trace-scale']);
  const durationSeconds = positive(
    values.duration,
    (values.trace ?? values.traces) !== undefined ? DEFAULT_TRACE_DURATION_SECONDS : DEFAULT_DURATION_SECONDS,
    'duration',
  );
  let traces: LabTrace[] | undefined;
  if (values.trace !== undefined) traces = [loadTrace(resolve(cwd, values.trace))];
  if (values.traces !== undefined) {
    const perFamily = values['traces-per-family'] === undefined ? undefined : positive(values['traces-per-family'], 0, 'traces-per-family');
    if (perFamily !== undefined && !Number.isInteger(perFamily))
      throw new Error(`--traces-per-family must be a whole number, got ${values['traces-per-family']}`);
    const families = values.families
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    traces = selectTraces(loadTraceDir(resolve(cwd, values.traces)), { families, perFamily, sessionSeconds: durationSeconds });
  }
  if (traces && traceScale !== undefined) traces = traces.map((t) => scaleLabTrace(t, traceScale));
  for (const t of traces ?? []) {
    const peak = peakMbps(t.trace);
    if (peak > TRACE_MAX_PEAK_MBPS)
      throw new Error(
        `${t.file}${t.scale !== undefined ? ` × ${t.scale}` : ''}: peaks at ${peak.toFixed(0)} Mbit/s in a second, above the ${TRACE_MAX_PEAK_MBPS} Mbit/s the lab's delay line is meant for`,
      );
  }
  let gameSize: { width: number; height: number } | undefined;
  if (values['game-size'] !== undefined) {
    const m = /^(\d+)x(\d+)$/.exec(values['game-size']);
    if (!m || Number(m[1]) < 64 || Number(m[2]) < 64 || Number(m[1]) % 16 || Number(m[2]) % 16)
      throw new Error(`--game-size must be WIDTHxHEIGHT, multiples of 16 from 64, got ${values['game-size']}`);
    gameSize = { width: Number(m[1]), height: Number(m[2]) };
  }
  const game = {
    ...gameSize,
    ...(values['game-mbps'] !== undefined ? { maxKbps: Math.round(positive(values['game-mbps'], 0, 'game-mbps') * 1000) } : {}),
    ...(values['game-fps'] !== undefined ? { fps: Math.round(positive(values['game-fps'], 0, 'game-fps')) } : {}),
    ...(values['game-warmup'] !== undefined
      ? { warmupSeconds: positive(values['game-warmup'], 0, 'game-warmup', { allowZero: true }) }
      : {}),
  };
  const contentSeconds = Math.round(positive(values['content-seconds'], LAB_LADDER.durationS, 'content-seconds'));
  const buffers = [
    ...new Set((values['buffer-seconds'] ?? String(DEFAULT_BUFFER_SECONDS)).split(',').map((s) => positive(s.trim(), 0, 'buffer-seconds'))),
  ];
  const config: BenchConfig = {
    arms: list(values.arms, ARMS, traces ? TRACE_ARMS : DEFAULT_ARMS, isArm, 'arm'),
    neighbours: list(values.neighbours, NEIGHBOURS, ['udp', 'tcp', 'http', 'video'], isNeighbour, 'neighbour'),
    edge,
    http2: values.http2 ?? false,
    runs: Math.round(positive(values.runs, DEFAULT_RUNS, 'runs')),
    durationSeconds,
    cc,
    neighbourCc,
    seed: Math.round(Number(values.seed ?? 1)),
    queueBytes: home
      ? HOME_QUEUE_SPECS[home].queueBytes
      : Math.round(positive(values.queue, QUEUE_BDP_MULTIPLE * PAPER_BDP_BYTES, 'queue')),
    rateMbps: home ? HOME_LINK.rateMbps : positive(values.rate, BOTTLENECK_MBPS, 'rate'),
    rttMs: home ? HOME_LINK.rttMs : positive(values['rtt-ms'], PAPER_RTT_MS, 'rtt-ms', { allowZero: true }),
    ...(home ? { homeQueue: home } : {}),
    manifestPath: film4k ? FILM_4K_MANIFEST_PATH : (values.manifest ?? labLadderManifestPath(contentSeconds)),
    contentSeconds: values.manifest === undefined && !film4k ? contentSeconds : undefined,
    bufferSeconds: buffers[0],
    ...(buffers.length > 1 ? { bufferTargets: buffers } : {}),
    mediaDir: resolve(cwd, values['media-dir'] ?? DEFAULT_MEDIA_ROOT),
    ...PAPER_NEIGHBOURS,
    resultsDir: resolve(cwd, values.results ?? join(LAB_DIR, 'results')),
    plainProgress: values.plain ?? false,
    udpRateMbps: positive(values['udp-mbps'], PAPER_NEIGHBOURS.udpRateMbps, 'udp-mbps'),
    ...(traces ? { traces, traceSource: resolve(cwd, values.trace ?? values.traces ?? '') } : {}),
    ...(traces && values['udp-mbps'] === undefined ? { udpShareOfTrace: UDP_SHARE_OF_TRACE } : {}),
    ...(Object.keys(game).length ? { game } : {}),
  };
  const problem = configProblem(config);
  if (problem) throw new Error(problem);
  return { help: false, config };
}

/**
 * What one bench invocation runs: arms × neighbours × runs, and the bottleneck they share.
 */
import type { CongestionControl } from 'sammy-pacing-protocol';
import type { HomeQueue } from './home-link.js';
import type { LabTrace } from './traces.js';

/**
 * The players the paper compares (Section 5.5 and 6), and dash.js's own ABR with Sammy's pace
 * (`pace-only`, issue 14), selected on the lab page by `?arm=`; then Sammy with the paper's pace
 * design (`sammy-paper`: `PRESETS.paper`, the defaults before issue 17), Sammy with the neighbour
 * first (`*sammy-neighbour-first`: `PRESETS.neighbourFirst`, issue 39), Sammy's defaults with dash.js's
 * fast switching left on (`sammy-fast-switch`: the adapter before it turned it off) and the Shaka Player and
 * hls.js adapters, each next to its own player's unpaced control.
 */
export const ARMS = [
  'unpaced',
  'dashjs-rtp',
  'flat-cap',
  'sammy',
  'pace-only',
  'sammy-paper',
  'sammy-neighbour-first',
  'sammy-fast-switch',
  'shaka-unpaced',
  'shaka-sammy',
  'shaka-sammy-neighbour-first',
  'hlsjs-unpaced',
  'hlsjs-sammy',
  'hlsjs-sammy-neighbour-first',
] as const;
export type Arm = (typeof ARMS)[number];

/** The player an arm's page loads (its own module on the page, imported only for that arm). */
export const PLAYERS = ['dashjs', 'shaka', 'hlsjs'] as const;
export type Player = (typeof PLAYERS)[number];

export const PLAYER_LABELS: Record<Player, string> = {
  dashjs: 'dash.js 5 (DASH)',
  shaka: 'Shaka Player 5 (DASH)',
  hlsjs: 'hls.js 1.7 (HLS)',
};

export interface ArmSpec {
  player: Player;
  label: string;
  /** What the report compares the arm with: its own player's unpaced control (itself for a control). */
  control: Arm;
  /** Sammy picks the bitrate and paces: the report judges it against the targets. */
  judged: boolean;
}

export const ARM_SPECS: Record<Arm, ArmSpec> = {
  unpaced: { player: 'dashjs', label: 'dash.js default ABR, unpaced', control: 'unpaced', judged: false },
  'dashjs-rtp': { player: 'dashjs', label: 'dash.js built-in CMCD rtp', control: 'unpaced', judged: false },
  'flat-cap': { player: 'dashjs', label: 'flat cap 4× top bitrate', control: 'unpaced', judged: false },
  sammy: { player: 'dashjs', label: 'Sammy (defaults = PRESETS.bufferAware)', control: 'unpaced', judged: true },
  'pace-only': { player: 'dashjs', label: 'dash.js ABR + Sammy pace (pace-only)', control: 'unpaced', judged: false },
  'sammy-paper': { player: 'dashjs', label: 'Sammy PRESETS.paper (the paper’s pace design)', control: 'unpaced', judged: true },
  'sammy-neighbour-first': {
    player: 'dashjs',
    label: 'Sammy PRESETS.neighbourFirst (the neighbour first)',
    control: 'unpaced',
    judged: true,
  },
  'sammy-fast-switch': {
    player: 'dashjs',
    label: 'Sammy (defaults) with dash.js fast switching on',
    control: 'unpaced',
    judged: true,
  },
  'shaka-unpaced': { player: 'shaka', label: 'Shaka default ABR, unpaced', control: 'shaka-unpaced', judged: false },
  'shaka-sammy': { player: 'shaka', label: 'Shaka + Sammy (defaults)', control: 'shaka-unpaced', judged: true },
  'shaka-sammy-neighbour-first': { player: 'shaka', label: 'Shaka + Sammy PRESETS.neighbourFirst', control: 'shaka-unpaced', judged: true },
  'hlsjs-unpaced': { player: 'hlsjs', label: 'hls.js default ABR, unpaced', control: 'hlsjs-unpaced', judged: false },
  'hlsjs-sammy': { player: 'hlsjs', label: 'hls.js + Sammy (defaults)', control: 'hlsjs-unpaced', judged: true },
  'hlsjs-sammy-neighbour-first': {
    player: 'hlsjs',
    label: 'hls.js + Sammy PRESETS.neighbourFirst',
    control: 'hlsjs-unpaced',
    judged: true,
  },
};

export const ARM_LABELS = Object.fromEntries(ARMS.map((a) => [a, ARM_SPECS[a].label])) as Record<Arm, string>;

/** Arms in the report's order: by player (dash.js, Shaka, hls.js), as asked within each. */
export function armsByPlayer(arms: readonly Arm[]): Arm[] {
  return PLAYERS.flatMap((p) => arms.filter((a) => ARM_SPECS[a].player === p));
}

/** Arms a plain `bench:lab` runs (the paper's four); the others are asked for by name (pace-only runs by default with traces). */
export const DEFAULT_ARMS: readonly Arm[] = ['unpaced', 'dashjs-rtp', 'flat-cap', 'sammy'];
/** With --trace/--traces: issue 39's four, the frontier's two anchors and Sammy's two points (pace-only by name). */
export const TRACE_ARMS: readonly Arm[] = ['unpaced', 'sammy', 'sammy-neighbour-first', 'dashjs-rtp'];

/**
 * With a trace the downlink's tbf stays (its counters show what left the router) at this rate,
 * far above any trace's peak, so that only the delay line's trace-driven link limits the rate.
 */
export const TRACE_TBF_MBPS = 1000;
/** With traces, the UDP neighbour's share of each trace's mean rate: the paper's 5 Mbit/s of 40. */
export const UDP_SHARE_OF_TRACE = 5 / 40;
/** A trace whose 1-s peak is above this is refused: the delay line is not meant for such rates. */
export const TRACE_MAX_PEAK_MBPS = 500;

/** Neighbouring traffic of Section 6; `none` is the video alone (the paper's Fig. 7). */
export const NEIGHBOURS = ['udp', 'tcp', 'http', 'video', 'game', 'none'] as const;
export type Neighbour = (typeof NEIGHBOURS)[number];

export const NEIGHBOUR_LABELS: Record<Neighbour, string> = {
  udp: 'paced UDP (--udp-mbps, default 5 Mbps; with traces 1/8 of the trace mean), one-way delay',
  tcp: 'bulk TCP (iperf3) from 10 s after playback, throughput',
  http: 'repeated 3 MB HTTP fetches, response time',
  video: 'second unpaced dash.js session, startup delay',
  game: 'WebRTC game stream (Chromium → Chromium, GCC), per-frame glass-to-glass latency',
  none: 'no neighbour',
};

/**
 * What serves the media: `none`, the lab's origin directly (its sammyPacing middleware paces);
 * `varnish`, varnishd with origin/varnish's sammy.vcl in front of that origin, in the server namespace.
 */
export const EDGES = ['none', 'varnish'] as const;
export type Edge = (typeof EDGES)[number];

export const EDGE_LABELS: Record<Edge, string> = {
  none: "direct origin (lab server: sammy-pacing-express on Express's router)",
  varnish: 'Varnish (origin/varnish sammy.vcl, tcp vmod) in front of the Express origin',
};

/** Bottleneck of the paper's lab: 40 Mbps, queue 4 × BDP at a 5 ms RTT. */
export const BOTTLENECK_MBPS = 40;
export const PAPER_RTT_MS = 5;
export const QUEUE_BDP_MULTIPLE = 4;
/** 40 Mbps × 5 ms = 25 000 bytes; × 4 = 100 000 bytes. */
export const PAPER_BDP_BYTES = (BOTTLENECK_MBPS * 1e6 * (PAPER_RTT_MS / 1000)) / 8;

export const DEFAULT_RUNS = 3;
export const DEFAULT_DURATION_SECONDS = 40;
/**
 * Buffer target of every arm. The paper's control is a production player that buffers minutes
 * ahead: in its lab it kept the link full for ~25 s before turning on-off (Fig. 7), so its
 * neighbours met a video that was still downloading. dash.js's own 30 s target would make a
 * 3.3 Mbps video at 40 Mbit/s idle ~90% of the time, and there would be little left to pace.
 */
export const DEFAULT_BUFFER_SECONDS = 240;
/**
 * Sessions with --trace/--traces (issue 33): long enough to see a steady state. At a 240 s target
 * holding starts only at tens of seconds of buffer, which a 40–45 s session on a 1–2 × link never
 * reaches; the report splits the neighbour's delay into the session's first and second half.
 */
export const DEFAULT_TRACE_DURATION_SECONDS = 90;

/** The neighbours as the paper's lab ran them (Section 6); the CLI and the smoke test both use these. */
export const PAPER_NEIGHBOURS = {
  /** The bulk TCP flow starts this long after playback starts. */
  tcpStartAfterPlaybackSeconds: 10,
  /** The second video session starts this long after the first one's playback starts. */
  videoNeighbourDelaySeconds: 5,
  httpBytes: 3_000_000,
  httpGapMs: 500,
  udpRateMbps: 5,
  udpPayloadBytes: 1200,
} as const;

/**
 * The game-stream neighbour (issues 34, 40): 480×272 at 30 fps (issue 34 ran 640×360, and most of
 * its runs' senders were CPU-starved on the shared 2 cores; the stamp's 384-px row still fits) so that
 * the software VP8 encoder is limited by the network rather than the CPU (qualityLimitationReason and
 * the sender's frame-timer lateness tell, per run; at 60 fps and load 10–13 the pages drew ~45 and showed ~17 fps);
 * its maxBitrate is 60 % of the link by default, as cloud gaming asks ~30 of a 50 Mbit/s link (seed 002).
 * The game starts GAME_WARMUP_SECONDS before the video's play request, as a game already running when
 * someone starts a film: congestion control has ramped up and the window before the play request is
 * the game alone.
 */
export const GAME_DEFAULTS = { width: 480, height: 272, fps: 30, linkShare: 0.6, warmupSeconds: 8 } as const;

export interface GameConfig {
  width: number;
  height: number;
  fps: number;
  maxKbps: number;
  warmupSeconds: number;
}

/** The game settings of a bench: its own, or the defaults for its link. */
export function gameConfig(config: Pick<BenchConfig, 'game' | 'rateMbps'>): GameConfig {
  return {
    width: config.game?.width ?? GAME_DEFAULTS.width,
    height: config.game?.height ?? GAME_DEFAULTS.height,
    fps: config.game?.fps ?? GAME_DEFAULTS.fps,
    maxKbps: config.game?.maxKbps ?? Math.round(GAME_DEFAULTS.linkShare * config.rateMbps * 1000),
    warmupSeconds: config.game?.warmupSeconds ?? GAME_DEFAULTS.warmupSeconds,
  };
}

export interface BenchConfig {
  /** The game-stream neighbour's settings; absent fields take GAME_DEFAULTS (maxKbps: 60 % of the link). */
  game?: Partial<GameConfig>;
  arms: Arm[];
  neighbours: Neighbour[];
  /** What the players and neighbours connect to (default `none`: the origin itself). */
  edge: Edge;
  /**
   * HTTPS with HTTP/2 (`--http2`): the lab server speaks h2 by ALPN with the lab certificate, the page,
   * manifest, media, records and the HTTP neighbour all go over https://. Default (absent, false):
   * plain HTTP/1.1. Not with an edge (Varnish has no TLS here).
   */
  http2?: boolean;
  runs: number;
  /** Length of each video session from the play request, seconds. */
  durationSeconds: number;
  /** Congestion control of every server-side sender of video and neighbour HTTP. */
  cc: CongestionControl;
  /** Congestion control of the bulk TCP neighbour (the paper used Reno). */
  neighbourCc: CongestionControl;
  seed: number;
  /** Queue of the bottleneck, bytes (drop-tail; with homeQueue its kind's limit). */
  queueBytes: number;
  /**
   * The home link (`--link home`): 40 Mbit/s, 40 ms, the downlink's queue of this kind in the
   * router's delay line (home-link.ts). Absent: the paper's link, a tbf with a drop-tail queue.
   */
  homeQueue?: HomeQueue;
  /** Round-trip propagation delay the router's delay line adds, ms (paper: 5; 0: none). */
  rttMs: number;
  rateMbps: number;
  /** Manifest path on the lab server. */
  manifestPath: string;
  /** Directory the manifest path's `/media/` prefix maps to. */
  mediaDir: string;
  /** Length of the content, seconds, when the bench makes its own ladder (undefined: the origin's default ladder). */
  contentSeconds?: number;
  /**
   * Every player's buffer target, seconds: dash.js's bufferTimeAtTopQuality (its long-form twin and
   * bufferTimeDefault), Shaka's streaming.bufferingGoal, hls.js's maxBufferLength; undefined: each player's defaults.
   */
  bufferSeconds?: number;
  /**
   * Several buffer targets in one invocation (`--buffer-seconds 30,240`): every arm × neighbour × trace
   * × run is made at each, and the report splits by target. Absent: the one `bufferSeconds`.
   */
  bufferTargets?: number[];
  /** The bulk TCP flow starts this long after playback starts (paper: 10 s). */
  tcpStartAfterPlaybackSeconds: number;
  /** The second video session starts this long after the first one's playback starts. */
  videoNeighbourDelaySeconds: number;
  httpBytes: number;
  /** Pause between neighbour HTTP fetches, ms. */
  httpGapMs: number;
  udpRateMbps: number;
  /**
   * With traces: the UDP neighbour's rate as a share of each trace's mean over the session (the
   * paper's 5 of 40 Mbit/s = 1/8), instead of `udpRateMbps`: a fixed 5 Mbit/s flow would fill a
   * 2.6 Mbit/s trace by itself and starve the video. Undefined: `udpRateMbps` (also with `--udp-mbps`).
   */
  udpShareOfTrace?: number;
  udpPayloadBytes: number;
  resultsDir: string;
  /** Print a line per second instead of redrawing one line (no TTY, CI, tests). */
  plainProgress: boolean;
  /**
   * Trace-driven bottleneck (`--trace`, `--traces`): every arm × neighbour × run is run on each
   * trace, the downlink following it (the delay line's mm-link-style queue of `queueBytes`);
   * absent: the constant `rateMbps` tbf bottleneck.
   */
  traces?: LabTrace[];
  /** Where the traces came from, for the report (the file or folder given). */
  traceSource?: string;
}

/** The buffer targets the bench runs at, in the order given (undefined: the players' own defaults). */
export function bufferTargetsOf(config: Pick<BenchConfig, 'bufferSeconds' | 'bufferTargets'>): Array<number | undefined> {
  return config.bufferTargets?.length ? [...config.bufferTargets] : [config.bufferSeconds];
}

/** Why `config` cannot run, before anything is set up; undefined when it can. */
export function configProblem(config: BenchConfig): string | undefined {
  if (config.http2 && config.edge !== 'none') {
    return `--http2 cannot go with --edge ${config.edge}: ${config.edge === 'varnish' ? 'Varnish serves plain HTTP only here (no TLS, so no HTTP/2)' : 'the edge has no TLS'}; run --http2 against the origin directly (no --edge)`;
  }
  return undefined;
}

export function isArm(v: string): v is Arm {
  return (ARMS as readonly string[]).includes(v);
}
export function isEdge(v: string): v is Edge {
  return (EDGES as readonly string[]).includes(v);
}
export function isNeighbour(v: string): v is Neighbour {
  return (NEIGHBOURS as readonly string[]).includes(v);
}

/**
 * The game neighbour's section of a report (issue 34): what a player of the game saw per arm, the
 * video's QoE beside it, and Sammy against its control on the issue's targets. Medians over runs with
 * [min–max] and the run count; every run's CPU limitation and machine load, so contention shows.
 */
import { ARM_LABELS, ARM_SPECS, type Arm } from '../config.js';
import type { RunMetrics } from '../measurements.js';
import { percentChange, spread, type Spread } from '../stats.js';

function f(x: number | undefined, d: number): string {
  return x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(d);
}

export function spreadText(s: Spread, d: number, scale = 1): string {
  if (s.n === 0 || s.median === undefined) return '—';
  const m = (x: number | undefined) => f(x === undefined ? undefined : x * scale, d);
  return s.n === 1 ? `${m(s.median)} (1)` : `${m(s.median)} [${m(s.min)}–${m(s.max)}] (${s.n})`;
}

export const GAME_COLUMNS: ReadonlyArray<[string, (m: RunMetrics) => number | undefined, number, number?]> = [
  ['latency p50 (ms)', (m) => m.game?.latencyP50Ms, 1],
  ['latency p95 (ms)', (m) => m.game?.latencyP95Ms, 1],
  ['latency p99 (ms)', (m) => m.game?.latencyP99Ms, 1],
  ['over 50 ms (%)', (m) => m.game?.over50Share, 1, 100],
  ['over 100 ms (%)', (m) => m.game?.over100Share, 1, 100],
  ['freezes', (m) => m.game?.freezes, 0],
  ['freeze time (s)', (m) => m.game?.freezeSeconds, 2],
  ['frames dropped', (m) => m.game?.framesDropped, 0],
  ['shown fps', (m) => m.game?.shownFps, 1],
  ['received (Mbit/s)', (m) => m.game?.receivedMbps, 2],
  ['RTT (ms, RTCP)', (m) => m.game?.rttMs, 1],
  ['jitter (ms)', (m) => m.game?.jitterMs, 1],
  ['frame width', (m) => m.game?.frameWidth, 0],
];

const VIDEO_COLUMNS: ReadonlyArray<[string, (m: RunMetrics) => number | undefined, number]> = [
  ['bitrate (kbps)', (m) => m.meanBitrateKbps, 0],
  ['rebuffers', (m) => m.rebufferCount, 0],
  ['rebuffer time (s)', (m) => m.rebufferSeconds, 2],
  ['chunk thr. (Mbps)', (m) => m.chunkThroughputMbps, 1],
  ['startup (ms)', (m) => m.startupDelayMs, 0],
  ['pace (Mbps)', (m) => (m.medianPaceKbps === undefined ? undefined : m.medianPaceKbps / 1000), 1],
];

export interface GameTarget {
  what: string;
  text: string;
  control?: number;
  other?: number;
  changePercent?: number;
  met?: boolean;
  /** By how much it is missed, in the target's own terms. */
  missBy?: string;
}

/** One target: what, its text, the figure per run, and the verdict on the medians (control, other, % change). */
export type TargetSpec = readonly [
  string,
  string,
  (m: RunMetrics) => number | undefined,
  (c: number, o: number, pct: number | undefined) => { met: boolean; missBy?: string },
];

/** `other` against `control` on targets, from the medians over their game runs. */
export function judgeTargets(metrics: RunMetrics[], other: Arm, control: Arm, specs: readonly TargetSpec[]): GameTarget[] {
  const med = (arm: Arm, get: (m: RunMetrics) => number | undefined) =>
    spread(metrics.filter((m) => m.arm === arm && m.neighbour === 'game').map(get)).median;
  return specs.map(([what, text, get, judge]) => {
    const c = med(control, get);
    const o = med(other, get);
    const pct = percentChange(c, o);
    const v = c === undefined || o === undefined ? undefined : judge(c, o, pct);
    return { what, text, control: c, other: o, changePercent: pct, met: v?.met, missBy: v?.missBy };
  });
}

/** Sammy (or any arm) against its control on issue 34's targets, from the medians over runs. */
export function gameTargets(metrics: RunMetrics[], other: Arm, control: Arm): GameTarget[] {
  const out: TargetSpec[] = [];
  const add = (...spec: TargetSpec) => out.push(spec);
  add(
    'game frame latency p95 (ms)',
    '≥ 50 % lower',
    (m) => m.game?.latencyP95Ms,
    (_c, _o, pct) =>
      pct !== undefined && pct <= -50
        ? { met: true }
        : { met: false, missBy: `${f(pct, 1)} % instead of ≤ −50 % (${f((pct ?? 0) + 50, 1)} points short)` },
  );
  add(
    'game freezes (count)',
    'no more',
    (m) => m.game?.freezes,
    (c, o) => (o <= c ? { met: true } : { met: false, missBy: `${f(o - c, 1)} more` }),
  );
  add(
    'game freeze time (s)',
    'no more',
    (m) => m.game?.freezeSeconds,
    (c, o) => (o <= c ? { met: true } : { met: false, missBy: `${f(o - c, 2)} s more` }),
  );
  add(
    'game received bitrate (Mbit/s)',
    'no lower',
    (m) => m.game?.receivedMbps,
    (c, o, pct) => (o >= c ? { met: true } : { met: false, missBy: `${f(pct, 1)} %` }),
  );
  add(
    'viewer bitrate (kbps)',
    'unchanged (within 5 %)',
    (m) => m.meanBitrateKbps,
    (_c, _o, pct) => (pct !== undefined && Math.abs(pct) <= 5 ? { met: true } : { met: false, missBy: `${f(pct, 1)} %` }),
  );
  add(
    'viewer rebuffers (count)',
    'unchanged (no more)',
    (m) => m.rebufferCount,
    (c, o) => (o <= c ? { met: true } : { met: false, missBy: `${f(o - c, 1)} more` }),
  );
  return judgeTargets(metrics, other, control, out);
}

export function renderGameSection(metrics: RunMetrics[], arms: Arm[]): string[] {
  const game = metrics.filter((m) => m.neighbour === 'game' && m.game);
  if (game.length === 0) return [];
  const L: string[] = [];
  L.push('## Game stream neighbour (issue 34)', '');
  L.push(
    "A WebRTC stream from a Chromium in the server namespace to one in the client namespace through the same bottleneck (Chromium's own GCC congestion control, " +
      'host candidates only), started before the play request: "alone" is the game before the video starts, the rest from the play request to the end. ' +
      "Latency is per shown frame: the sender's capture time, stamped into the frame's pixels, against the receiver's expected display time of the decoded frame " +
      "(requestVideoFrameCallback), on the host clock both browsers share. Freezes and drops are inbound-rtp's (freezeCount, totalFreezesDuration, framesDropped). " +
      'Medians over runs, [min–max] (runs).',
    '',
  );
  const head = ['arm', 'window', ...GAME_COLUMNS.map(([h]) => h)];
  L.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const arm of arms) {
    const rs = game.filter((m) => m.arm === arm);
    if (rs.length === 0) continue;
    for (const [window, pick] of [
      ['alone', (m: RunMetrics) => m.gameAlone],
      ['with the video', (m: RunMetrics) => m.game],
    ] as const) {
      const cells = GAME_COLUMNS.map(([, get, d, scale]) => spreadText(spread(rs.map((m) => get({ ...m, game: pick(m) }))), d, scale));
      L.push(`| ${ARM_LABELS[arm]} | ${window} | ${cells.join(' | ')} |`);
    }
  }
  L.push('');
  L.push('The video beside it (same runs):', '');
  const vhead = ['arm', ...VIDEO_COLUMNS.map(([h]) => h)];
  L.push(`| ${vhead.join(' | ')} |`, `|${vhead.map(() => '---').join('|')}|`);
  for (const arm of arms) {
    const rs = game.filter((m) => m.arm === arm);
    if (rs.length) L.push(`| ${ARM_LABELS[arm]} | ${VIDEO_COLUMNS.map(([, get, d]) => spreadText(spread(rs.map(get)), d)).join(' | ')} |`);
  }
  L.push('');
  L.push(
    "Per run (the encoder's limitation from qualityLimitationDurations over the window; CPU-limited = over 10 % of it; sender CPU-starved = the sender page's " +
      'frame timer late by more than a frame period at p95, which getStats cannot show; load = /proc/loadavg 1-min at the end):',
    '',
  );
  L.push(
    '| arm | run | p95 (ms) | received (Mbit/s) | GCC target (Mbit/s) | limited by bandwidth / cpu (%) | frame size | sender timer late p95 (ms) | clock skew measured ± (ms) | load | flag |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const m of game) {
    const g = m.game!;
    L.push(
      `| ${m.arm} | ${m.index} | ${f(g.latencyP95Ms, 1)} | ${f(g.receivedMbps, 2)} | ${f(g.targetMbps, 2)} | ${f((g.bandwidthLimitedShare ?? NaN) * 100, 0)} / ${f((g.cpuLimitedShare ?? NaN) * 100, 0)} | ` +
        `${f(g.frameWidth, 0)}×${f(g.frameHeight, 0)} | ${f(g.drawLateP95Ms, 1)} | ${f(g.clockSkewMeasuredMs, 1)} ± ${f(g.clockSkewUncertaintyMs, 1)} | ${f(m.loadAvg1, 2)} | ${[g.cpuLimited ? '**CPU-limited**' : '', g.senderStarved ? '**sender CPU-starved**' : ''].filter(Boolean).join(', ')} |`,
    );
  }
  L.push('');
  for (const other of arms.filter((a) => ARM_SPECS[a].control !== a && arms.includes(ARM_SPECS[a].control))) {
    const control = ARM_SPECS[other].control;
    if (!game.some((m) => m.arm === other) || !game.some((m) => m.arm === control)) continue;
    L.push(`### ${ARM_LABELS[other]} against ${control}: issue 34's targets`, '');
    L.push(`| target | ${control} | ${other} | change | target | verdict |`, '|---|---|---|---|---|---|');
    for (const t of gameTargets(metrics, other, control)) {
      L.push(
        `| ${t.what} | ${f(t.control, 2)} | ${f(t.other, 2)} | ${t.changePercent === undefined ? '—' : `${t.changePercent >= 0 ? '+' : ''}${t.changePercent.toFixed(1)} %`} | ${t.text} | ${t.met === undefined ? 'unknown' : t.met ? 'met' : `**missed**: ${t.missBy}`} |`,
      );
    }
    L.push('');
  }
  return L;
}

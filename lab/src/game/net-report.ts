/**
 * The game's network delay in a report (issue 40): per arm, alone and beside the film, medians over
 * runs with [min–max] (runs), and each judged arm against its control on issue 40's targets.
 */
import { ARM_LABELS, ARM_SPECS, type Arm } from '../config.js';
import type { RunMetrics } from '../measurements.js';
import { spread } from '../stats.js';
import { judgeTargets, spreadText, type GameTarget } from './report.js';

type Column = readonly [string, (m: RunMetrics) => number | undefined, number, number?];

const NET_COLUMNS: readonly Column[] = [
  ['net p50 (ms)', (m) => m.gameNet?.p50Ms, 1],
  ['net p95 (ms)', (m) => m.gameNet?.p95Ms, 1],
  ['net p99 (ms)', (m) => m.gameNet?.p99Ms, 1],
  ['frames > 50 ms (%)', (m) => m.gameNet?.over50Share, 1, 100],
  ['frames > 100 ms (%)', (m) => m.gameNet?.over100Share, 1, 100],
  ['frame arrival spread p95 (ms)', (m) => m.gameNet?.arrivalSpreadP95Ms, 1],
  ['packet p50 (ms)', (m) => m.gameNet?.packetP50Ms, 1],
  ['packet p95 (ms)', (m) => m.gameNet?.packetP95Ms, 1],
  ['packet loss (%)', (m) => m.gameNet?.packetLossShare, 2, 100],
  ['frames with a loss', (m) => m.gameNet?.framesWithLoss, 0],
  ['incomplete frames', (m) => m.gameNet?.framesIncomplete, 0],
  ['frames', (m) => m.gameNet?.frames, 0],
  ['delivered (Mbit/s)', (m) => m.gameNet?.deliveredMbps, 2],
];

const BESIDE_COLUMNS: readonly Column[] = [
  ['GCC target (Mbit/s)', (m) => m.game?.targetMbps, 2],
  ['received (Mbit/s)', (m) => m.game?.receivedMbps, 2],
  ['freezes', (m) => m.game?.freezes, 0],
  ['glass-to-glass p95 (ms)', (m) => m.game?.latencyP95Ms, 1],
  [
    'added over alone p95 (ms)',
    (m) =>
      m.game?.latencyP95Ms !== undefined && m.gameAlone?.latencyP95Ms !== undefined
        ? m.game.latencyP95Ms - m.gameAlone.latencyP95Ms
        : undefined,
    1,
  ],
  ['film bitrate (kbps)', (m) => m.meanBitrateKbps, 0],
  ['film rebuffers', (m) => m.rebufferCount, 0],
  ['film rebuffer (s)', (m) => m.rebufferSeconds, 2],
  ['film chunk thr. (Mbps)', (m) => m.chunkThroughputMbps, 1],
  ['queue p95 (ms)', (m) => m.queueDelayP95Ms, 1],
  ['sender starved (runs)', (m) => (m.game ? Number(m.game.senderStarved) : undefined), 0],
  ['load (1 min)', (m) => m.loadAvg1, 1],
];

/** Issue 40's targets for `other` against `control` (medians over runs). */
export function netTargets(metrics: RunMetrics[], other: Arm, control: Arm): GameTarget[] {
  const by = (c: number, o: number) => ({ met: false, missBy: `${o - c >= 0 ? '+' : ''}${(o - c).toFixed(2)}` });
  return judgeTargets(metrics, other, control, [
    [
      'game network delay p95 (ms)',
      '≥ 50 % lower',
      (m) => m.gameNet?.p95Ms,
      (_c, _o, pct) =>
        pct !== undefined && pct <= -50 ? { met: true } : { met: false, missBy: `${pct?.toFixed(1) ?? '—'} % instead of ≤ −50 %` },
    ],
    ['game received bitrate (Mbit/s)', 'no lower', (m) => m.game?.receivedMbps, (c, o) => (o >= c ? { met: true } : by(c, o))],
    ['game freezes', 'no more', (m) => m.game?.freezes, (c, o) => (o <= c ? { met: true } : by(c, o))],
    [
      'film bitrate (kbps)',
      '≥ 98 %',
      (m) => m.meanBitrateKbps,
      (c, o, pct) => (o >= 0.98 * c ? { met: true } : { met: false, missBy: `${pct?.toFixed(1)} %` }),
    ],
    ['film rebuffer time (s)', 'no more', (m) => m.rebufferSeconds, (c, o) => (o <= c ? { met: true } : by(c, o))],
  ]);
}

function table(
  L: string[],
  rows: RunMetrics[],
  arms: Arm[],
  columns: readonly Column[],
  windows: ReadonlyArray<readonly [string, (m: RunMetrics) => RunMetrics]>,
): void {
  const head = ['arm', ...(windows.length > 1 ? ['window'] : []), ...columns.map(([h]) => h)];
  L.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const arm of arms) {
    const rs = rows.filter((m) => m.arm === arm);
    if (rs.length === 0) continue;
    for (const [name, view] of windows) {
      const cells = columns.map(([, get, d, scale]) => spreadText(spread(rs.map((m) => get(view(m)))), d, scale));
      L.push(`| ${ARM_LABELS[arm]}${windows.length > 1 ? ` | ${name}` : ''} | ${cells.join(' | ')} |`);
    }
  }
  L.push('');
}

export function renderNetSection(metrics: RunMetrics[], arms: Arm[]): string[] {
  const rows = metrics.filter((m) => m.neighbour === 'game' && m.gameNet);
  if (rows.length === 0) return [];
  const L: string[] = ["## The game's delay in the network (issue 40)", ''];
  L.push(
    "Every game RTP packet to the client as the router's delay line saw it: when it reached the router, when it left the bottleneck, or its drop, " +
      "on the delay line's one clock (the RTP header is in clear under SRTP). A frame is the media SSRC's packets of one RTP timestamp; its network " +
      "delay is its last packet out minus its first packet in (one-way propagation, queue, the frame's own serialization, and how far apart the sender's " +
      'pacer sent its packets, which grows as GCC lowers its rate: the arrival spread; a lost packet counts through its retransmission). Packets: each media ' +
      "packet's one-way delay through the router (propagation and queue only). Independent of the endpoints' CPU. \"alone\" is the game before the film's play request. Medians over runs, [min–max] (runs).",
    '',
  );
  table(L, rows, arms, NET_COLUMNS, [
    ['alone', (m) => ({ ...m, gameNet: m.gameNetAlone })],
    ['with the film', (m) => m],
  ]);
  L.push("The game's own figures (its pages' getStats) and the film beside it, same runs:", '');
  table(L, rows, arms, BESIDE_COLUMNS, [['with the film', (m) => m]]);
  for (const other of arms.filter((a) => ARM_SPECS[a].control !== a && arms.includes(ARM_SPECS[a].control))) {
    const control = ARM_SPECS[other].control;
    if (!rows.some((m) => m.arm === other) || !rows.some((m) => m.arm === control)) continue;
    L.push(`### ${ARM_LABELS[other]} against ${control}: issue 40's targets`, '');
    L.push(`| target | ${control} | ${other} | change | target | verdict |`, '|---|---|---|---|---|---|');
    const f = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(2));
    for (const t of netTargets(metrics, other, control)) {
      L.push(
        `| ${t.what} | ${f(t.control)} | ${f(t.other)} | ${t.changePercent === undefined ? '—' : `${t.changePercent >= 0 ? '+' : ''}${t.changePercent.toFixed(1)} %`} | ${t.text} | ${t.met === undefined ? 'unknown' : t.met ? 'met' : `**missed**: ${t.missBy}`} |`,
      );
    }
    L.push('');
  }
  return L;
}

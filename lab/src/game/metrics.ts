/**
 * What a player of the game saw in a window of a run, from the pages' records (state.ts): frame
 * latency from the stamps, freezes, drops, received bitrate, RTT, jitter and what limited the encoder.
 */
import { mean, quantile } from '../stats.js';
import type { GameReceiverSample, GameRun, GameSenderSample } from './state.js';

/** A freeze as WebRTC's stats define it (freezeCount): a gap between shown frames over max(3 × the mean of the last 30 gaps, that mean + 150 ms). */
export function freezesFromGaps(shownMs: readonly number[]): { count: number; totalMs: number } {
  let count = 0;
  let totalMs = 0;
  const recent: number[] = [];
  for (let i = 1; i < shownMs.length; i++) {
    const gap = shownMs[i]! - shownMs[i - 1]!;
    if (recent.length > 0) {
      const avg = recent.reduce((a, b) => a + b, 0) / recent.length;
      if (gap > Math.max(3 * avg, avg + 150)) {
        count++;
        totalMs += gap;
      }
    }
    recent.push(gap);
    if (recent.length > 30) recent.shift();
  }
  return { count, totalMs };
}

/** Percentiles, mean and the shares over 50 and 100 ms of a set of per-frame delays (ms). */
export interface DelayFigures {
  p50Ms?: number;
  p95Ms?: number;
  p99Ms?: number;
  meanMs?: number;
  /** Share over 50 and 100 ms, 0–1. */
  over50Share?: number;
  over100Share?: number;
}

export function delayFigures(ms: readonly number[]): DelayFigures {
  return {
    p50Ms: quantile(ms, 0.5),
    p95Ms: quantile(ms, 0.95),
    p99Ms: quantile(ms, 0.99),
    meanMs: mean(ms),
    over50Share: ms.length ? ms.filter((l) => l > 50).length / ms.length : undefined,
    over100Share: ms.length ? ms.filter((l) => l > 100).length / ms.length : undefined,
  };
}

export interface GameMetrics {
  /** Window length, s. */
  seconds: number;
  framesShown: number;
  /** Shown frames per second. */
  shownFps: number;
  /** Frames the sender drew in the window that never showed (gaps in the frame numbers shown). */
  framesMissing: number;
  unreadable: number;
  latencyP50Ms?: number;
  latencyP95Ms?: number;
  latencyP99Ms?: number;
  latencyMeanMs?: number;
  /** Share of shown frames with latency over 50 and 100 ms, 0–1. */
  over50Share?: number;
  over100Share?: number;
  /** From inbound-rtp (freezeCount, totalFreezesDuration) over the window. */
  freezes?: number;
  freezeSeconds?: number;
  /** The same rule applied to the shown frames' times (a check on the stats'). */
  gapFreezes: number;
  gapFreezeSeconds: number;
  /** inbound-rtp framesDropped over the window. */
  framesDropped?: number;
  receivedMbps?: number;
  /** Median RTCP round trip (sender's remote-inbound-rtp), and of the ICE pair, ms. */
  rttMs?: number;
  pairRttMs?: number;
  /** Median interarrival jitter, ms. */
  jitterMs?: number;
  /** Mean jitter-buffer delay of frames emitted in the window, ms. */
  jitterBufferMs?: number;
  packetsLost?: number;
  /** Median encoder target (GCC's), Mbit/s. */
  targetMbps?: number;
  /** Share of the window the encoder spent limited by CPU and by bandwidth (qualityLimitationDurations), 0–1. */
  cpuLimitedShare?: number;
  bandwidthLimitedShare?: number;
  /** The window's encoder is called CPU-limited when it was so for over 10 % of it. */
  cpuLimited: boolean;
  /** Median sent frame size as the receiver decoded it. */
  frameWidth?: number;
  frameHeight?: number;
  /** p95 of how late the sender's frame timer fired, ms. */
  drawLateP95Ms?: number;
  /**
   * The sender's page did not get the CPU to keep its frame clock: its timer's p95 lateness exceeds a
   * frame period. qualityLimitationReason cannot show this (the encoder was not the slow part), but
   * frames then leave late and in bursts, which adds latency no network change removes.
   */
  senderStarved: boolean;
  codec?: string;
  encoder?: string;
  /** Receiver clock − sender clock as measured, its uncertainty, and what was taken off the stamps (clockSkewMs). */
  clockSkewMeasuredMs: number;
  clockSkewUncertaintyMs: number;
  clockSkewAppliedMs: number;
}

export const CPU_LIMITED_SHARE = 0.1;

/** The sample nearest before or at t (samples in time order), else the first after it. */
function at<T extends { t: number }>(samples: readonly T[], t: number): T | undefined {
  let best: T | undefined;
  for (const s of samples) {
    if (s.t <= t) best = s;
    else return best ?? s;
  }
  return best;
}

function delta<T extends { t: number }>(
  samples: readonly T[],
  from: number,
  to: number,
  get: (s: T) => number | undefined,
): number | undefined {
  const a = at(samples, from);
  const b = at(samples, to);
  const va = a ? get(a) : undefined;
  const vb = b ? get(b) : undefined;
  return va === undefined || vb === undefined ? undefined : vb - va;
}

function inWindow<T extends { t: number }>(samples: readonly T[], from: number, to: number): T[] {
  return samples.filter((s) => s.t >= from && s.t <= to);
}

/**
 * The sender's clock minus the receiver's as far as the measurement can tell, ms: both pages take
 * performance.timeOrigin from the same host clock, so their stamps compare directly unless the
 * measured offsets differ by more than the measurement's own uncertainty (half of each round trip),
 * in which case the measured difference is taken off. Under load the round trips are several ms and
 * a correction within them would only add noise.
 */
export function clockSkewMs(run: Pick<GameRun, 'senderClock' | 'receiverClock'>): {
  skewMs: number;
  measuredMs: number;
  uncertaintyMs: number;
} {
  const measuredMs = run.receiverClock.offsetMs - run.senderClock.offsetMs;
  const uncertaintyMs = (run.receiverClock.rttMs + run.senderClock.rttMs) / 2;
  return { skewMs: Math.abs(measuredMs) > uncertaintyMs ? measuredMs : 0, measuredMs, uncertaintyMs };
}

/**
 * Metrics over [from, to] on the bench's clock. Page times are moved onto the bench's clock with each
 * page's offset; stamp latencies compare the sender's clock with the receiver's, so the difference of
 * their offsets is taken off them.
 */
export function gameMetrics(run: GameRun, from: number, to: number): GameMetrics {
  const rx = run.receiver;
  const tx = run.sender;
  const rxOff = run.receiverClock.offsetMs;
  const txOff = run.senderClock.offsetMs;
  // Stamp latency = shown (receiver clock) − captured (sender clock) = true latency + (rxOff − txOff).
  const skew = clockSkewMs(run).skewMs;
  const shown: number[] = [];
  const lat: number[] = [];
  const frameNos: number[] = [];
  for (let i = 0; i + 2 < rx.frames.length; i += 3) {
    const t = rx.frames[i]! - rxOff;
    if (t < from || t > to) continue;
    shown.push(t);
    lat.push(rx.frames[i + 1]! - skew);
    frameNos.push(rx.frames[i + 2]!);
  }
  let missing = 0;
  for (let i = 1; i < frameNos.length; i++) {
    const step = (frameNos[i]! - frameNos[i - 1]! + 65536) % 65536;
    if (step > 1 && step < 32768) missing += step - 1;
  }
  const gaps = freezesFromGaps(shown);
  const seconds = (to - from) / 1000;
  const rs = rx.receiver.map((s) => ({ ...s, t: s.t - rxOff }));
  const ss = tx.sender.map((s) => ({ ...s, t: s.t - txOff }));
  const rsIn = inWindow(rs, from, to);
  const ssIn = inWindow(ss, from, to);
  const bytes = delta(rs, from, to, (s: GameReceiverSample) => s.bytesReceived);
  const a = at(rs, from);
  const b = at(rs, to);
  const bytesSeconds = a && b ? (b.t - a.t) / 1000 : 0;
  const jbDelay = delta(rs, from, to, (s) => s.jitterBufferDelay);
  const jbCount = delta(rs, from, to, (s) => s.jitterBufferEmittedCount);
  const qa = at(ss, from);
  const qb = at(ss, to);
  const qSeconds = qa && qb ? (qb.t - qa.t) / 1000 : 0;
  const limited = (reason: string): number | undefined => {
    const d = delta(
      ss,
      from,
      to,
      (s: GameSenderSample) => s.qualityLimitationDurations?.[reason] ?? (s.qualityLimitationDurations ? 0 : undefined),
    );
    return d === undefined || qSeconds <= 0 ? undefined : Math.min(1, Math.max(0, d / qSeconds));
  };
  const cpu = limited('cpu');
  const fd = delta(rs, from, to, (s) => s.freezeCount);
  const fdur = delta(rs, from, to, (s) => s.totalFreezesDuration);
  const num = (xs: Array<number | undefined>): number[] => xs.filter((x): x is number => x !== undefined && Number.isFinite(x));
  const lastTx = ss.at(-1);
  const lastRx = rs.at(-1);
  return {
    seconds,
    framesShown: shown.length,
    shownFps: seconds > 0 ? shown.length / seconds : 0,
    framesMissing: missing,
    unreadable: rx.unreadable,
    ...(({ p50Ms, p95Ms, p99Ms, meanMs, ...shares }) => ({
      latencyP50Ms: p50Ms,
      latencyP95Ms: p95Ms,
      latencyP99Ms: p99Ms,
      latencyMeanMs: meanMs,
      ...shares,
    }))(delayFigures(lat)),
    freezes: fd,
    freezeSeconds: fdur,
    gapFreezes: gaps.count,
    gapFreezeSeconds: gaps.totalMs / 1000,
    framesDropped: delta(rs, from, to, (s) => s.framesDropped),
    receivedMbps: bytes !== undefined && bytesSeconds > 0 ? (bytes * 8) / bytesSeconds / 1e6 : undefined,
    rttMs: quantile(num(ssIn.map((s) => s.rttMs)), 0.5),
    pairRttMs: quantile(num(rsIn.map((s) => s.pairRttMs)), 0.5),
    jitterMs: quantile(num(rsIn.map((s) => s.jitterMs)), 0.5),
    jitterBufferMs: jbDelay !== undefined && jbCount ? (1000 * jbDelay) / jbCount : undefined,
    packetsLost: delta(rs, from, to, (s) => s.packetsLost),
    targetMbps: (() => {
      const q = quantile(num(ssIn.map((s) => s.targetBitrate)), 0.5);
      return q === undefined ? undefined : q / 1e6;
    })(),
    cpuLimitedShare: cpu,
    bandwidthLimitedShare: limited('bandwidth'),
    cpuLimited: (cpu ?? 0) > CPU_LIMITED_SHARE,
    frameWidth: quantile(num(rsIn.map((s) => s.frameWidth)), 0.5),
    frameHeight: quantile(num(rsIn.map((s) => s.frameHeight)), 0.5),
    drawLateP95Ms: quantile(tx.drawLateMs, 0.95),
    senderStarved: (quantile(tx.drawLateMs, 0.95) ?? 0) > 1000 / run.settings.fps,
    codec: lastTx?.codec,
    encoder: lastTx?.encoderImplementation ?? lastRx?.decoderImplementation,
    clockSkewMeasuredMs: clockSkewMs(run).measuredMs,
    clockSkewUncertaintyMs: clockSkewMs(run).uncertaintyMs,
    clockSkewAppliedMs: skew,
  };
}

/** Per-frame latency over time (s since `t0`, bench clock), binned: the p95 of each bin, for plots. */
export function latencySeries(run: GameRun, t0: number, binMs = 500): Array<{ t: number; p95Ms: number; p50Ms: number }> {
  const rx = run.receiver;
  const skew = clockSkewMs(run).skewMs;
  const bins = new Map<number, number[]>();
  for (let i = 0; i + 2 < rx.frames.length; i += 3) {
    const t = rx.frames[i]! - run.receiverClock.offsetMs;
    const k = Math.floor((t - t0) / binMs);
    const arr = bins.get(k) ?? [];
    arr.push(rx.frames[i + 1]! - skew);
    bins.set(k, arr);
  }
  return [...bins.entries()]
    .sort((x, y) => x[0] - y[0])
    .map(([k, v]) => ({ t: (k * binMs) / 1000, p95Ms: quantile(v, 0.95) ?? 0, p50Ms: quantile(v, 0.5) ?? 0 }));
}

/** Stamp latencies (ms) of the frames shown in [from, to] (bench clock), corrected for the clocks' offsets. */
export function gameLatencies(run: GameRun, from: number, to: number): number[] {
  const rx = run.receiver;
  const skew = clockSkewMs(run).skewMs;
  const out: number[] = [];
  for (let i = 0; i + 2 < rx.frames.length; i += 3) {
    const t = rx.frames[i]! - run.receiverClock.offsetMs;
    if (t >= from && t <= to) out.push(rx.frames[i + 1]! - skew);
  }
  return out;
}

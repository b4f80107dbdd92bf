/**
 * One run's metrics made by hand, for the report tests (family-report, frontier): a trace run of an
 * arm beside the UDP flow (or the TCP flow when `tcp` is given), with only the figures a test sets.
 */
import type { Arm, Neighbour } from '../../src/config.js';
import type { RunMetrics } from '../../src/measurements.js';

export interface HandRun {
  arm: Arm;
  family?: string;
  trace?: string;
  buffer?: number;
  neighbour?: Neighbour;
  kbps?: number;
  ratio?: number;
  switches?: number;
  startup?: number;
  qoe?: number;
  thr?: number;
  /** UDP one-way delay p50 and p95, ms. */
  udp?: [number, number];
  /** UDP p50 in the session's first and second half, ms. */
  halves?: [number, number];
  /** The bulk TCP neighbour's mean throughput, Mbit/s (makes it a TCP run). */
  tcp?: number;
  /** The trace's mean over the session, Mbit/s (default 4). */
  mbps?: number;
  /** Seconds stalled after the first frame (one stall when above 0). */
  stall?: number;
  load?: number;
  index?: number;
}

export function handRun(r: HandRun): RunMetrics {
  const neighbour = r.neighbour ?? (r.tcp !== undefined ? 'tcp' : 'udp');
  const family = r.family ?? 'fcc';
  return {
    arm: r.arm,
    neighbour,
    index: r.index ?? 1,
    family,
    trace: r.trace ?? `${family}/a`,
    traceMbps: r.mbps ?? 4,
    ...(r.buffer !== undefined ? { bufferSeconds: r.buffer } : {}),
    meanBitrateKbps: r.kbps,
    rebufferRatio: r.ratio ?? 0,
    qualitySwitches: r.switches ?? 0,
    startupDelayMs: r.startup ?? 500,
    qoeLin: r.qoe,
    chunkThroughputMbps: r.thr,
    rebufferCount: r.stall ? 1 : 0,
    rebufferSeconds: r.stall ?? 0,
    videoChunks: 10,
    errors: 0,
    ...(r.load !== undefined ? { loadAvg1: r.load } : {}),
    ...(neighbour === 'udp' && r.udp
      ? { neighbourMetric: { name: 'UDP one-way delay', unit: 'ms', p50: r.udp[0], p95: r.udp[1], samples: 100 } }
      : {}),
    ...(neighbour === 'udp' && r.halves ? { udpFirstHalf: { p50: r.halves[0] }, udpSecondHalf: { p50: r.halves[1] } } : {}),
    ...(neighbour === 'tcp' ? { neighbourMetric: { name: 'bulk TCP throughput', unit: 'Mbps', mean: r.tcp, samples: 30 } } : {}),
  };
}

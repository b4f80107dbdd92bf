/**
 * A closed-loop session on a simulated link, in pure code: the player downloads 4 s segments
 * one at a time, the server paces each response at the requested rtp, and the link caps
 * everything. Measured chunk throughput = bytes / (latency + bytes / min(pace, link) after
 * header overhead). Good enough to see whether a rule holds the top rung, stalls, or spirals.
 */
import { decideBitrate, decidePace, harmonicMeanKbps, nextPhase, type PlaybackEvent } from '../../src/policy/index.js';
import type { Phase, SammyParameters } from '../../src/types.js';

export interface SimulationConfig {
  linkKbps: number;
  videoLadderKbps: readonly number[];
  audioKbps: number;
  segmentSeconds: number;
  segments: number;
  /** Per-request latency (RTT + server time), ms. */
  latencyMs: number;
  /** Share of the wire rate lost to HTTP/TCP headers. */
  wireOverhead: number;
  /** Buffer target: the player waits while the buffer is above this minus one segment. */
  maxBufferSeconds: number;
  /** Buffer needed to start (or resume) playback, seconds. */
  startupBufferSeconds: number;
  /** Initial-phase samples from earlier sessions, kbps. */
  initialHistoryKbps?: number[];
}

export const DEFAULT_SIMULATION: Omit<SimulationConfig, 'linkKbps'> = {
  videoLadderKbps: [300, 750, 1500, 3000, 6000],
  audioKbps: 128,
  segmentSeconds: 4,
  segments: 90,
  latencyMs: 40,
  wireOverhead: 0.04,
  maxBufferSeconds: 30,
  startupBufferSeconds: 4,
};

export interface SegmentRecord {
  index: number;
  phase: Phase;
  bitrateKbps: number;
  paceKbps: number | undefined;
  throughputKbps: number;
  bufferBeforeSeconds: number;
  startedAtSeconds: number;
  downloadSeconds: number;
}

export interface SimulationResult {
  segments: SegmentRecord[];
  stalls: number;
  stallSeconds: number;
  startupSeconds: number;
}

/** A rule: picks the bitrate and the rtp of the next request. */
export interface SimulatedRule {
  choose(state: { phase: Phase; bufferSeconds: number; sessionSamplesKbps: number[]; initialSamplesKbps: number[]; config: SimulationConfig }): {
    bitrateKbps: number;
    rtpKbps: number | undefined;
  };
}

/** Sammy: the same policy functions the dash.js adapter calls. */
export function sammyRule(parameters: Readonly<SammyParameters>): SimulatedRule {
  return {
    choose({ phase, bufferSeconds, sessionSamplesKbps, initialSamplesKbps, config }) {
      const { bitrateKbps } = decideBitrate({
        phase,
        bitratesKbps: config.videoLadderKbps,
        bufferLevelSeconds: bufferSeconds,
        sessionThroughputKbps: harmonicMeanKbps(sessionSamplesKbps),
        initialThroughputKbps: harmonicMeanKbps(initialSamplesKbps),
        parameters,
      });
      const top = Math.max(...config.videoLadderKbps) + config.audioKbps;
      const rtpKbps = decidePace({ phase, bufferLevelSeconds: bufferSeconds, maxBufferSeconds: config.maxBufferSeconds, topBitrateKbps: top, parameters });
      return { bitrateKbps, rtpKbps };
    },
  };
}

/**
 * dash.js 5 with its built-in CMCD rtp honoured: throughput rule with its 0.9 safety factor,
 * and rtp = 5 × segment kbits / buffer seconds, rounded up to the next 100 (CmcdModel._calculateRtp).
 */
export function dashBuiltInRtpRule(): SimulatedRule {
  return {
    choose({ bufferSeconds, sessionSamplesKbps, config }) {
      const x = harmonicMeanKbps(sessionSamplesKbps);
      const ladder = [...config.videoLadderKbps].sort((a, b) => a - b);
      let bitrateKbps = ladder[0]!;
      if (x !== undefined) for (const r of ladder) if (r <= 0.9 * x) bitrateKbps = r;
      const bufferMs = bufferSeconds > 0 ? bufferSeconds * 1000 : 500;
      const segmentKbits = bitrateKbps * config.segmentSeconds;
      const rtpKbps = (Math.floor((5 * segmentKbits) / (bufferMs / 1000) / 100) + 1) * 100;
      return { bitrateKbps, rtpKbps };
    },
  };
}

export function simulateSession(rule: SimulatedRule, config: SimulationConfig): SimulationResult {
  let now = 0;
  let buffer = 0;
  let phase = 'initial' as Phase; // 'as': it changes inside closures, which narrowing does not see
  let stalls = 0;
  let stallSeconds = 0;
  let startupSeconds = NaN;
  const sessionSamples: number[] = [];
  const initialSamples = [...(config.initialHistoryKbps ?? [])];
  const segments: SegmentRecord[] = [];
  const move = (event: PlaybackEvent) => (phase = nextPhase(phase, event));

  /** Advances wall time by dt; plays out buffer when playing; returns seconds stalled. */
  const advance = (dt: number) => {
    now += dt;
    if (phase !== 'playing') return;
    if (buffer >= dt) {
      buffer -= dt;
      return;
    }
    stallSeconds += dt - buffer;
    buffer = 0;
    stalls += 1;
    move('stalled');
  };

  for (let i = 0; i < config.segments; i++) {
    // The player idles while the buffer has no room for another segment.
    const room = config.maxBufferSeconds - config.segmentSeconds;
    if (phase === 'playing' && buffer > room) advance(buffer - room);

    const { bitrateKbps, rtpKbps } = rule.choose({ phase, bufferSeconds: buffer, sessionSamplesKbps: sessionSamples, initialSamplesKbps: initialSamples, config });
    const kbits = bitrateKbps * config.segmentSeconds;
    const wireKbps = Math.min(rtpKbps ?? Infinity, config.linkKbps);
    const downloadSeconds = config.latencyMs / 1000 + kbits / (wireKbps * (1 - config.wireOverhead));
    const record: SegmentRecord = {
      index: i,
      phase,
      bitrateKbps,
      paceKbps: rtpKbps,
      throughputKbps: kbits / downloadSeconds,
      bufferBeforeSeconds: buffer,
      startedAtSeconds: now,
      downloadSeconds,
    };
    segments.push(record);
    advance(downloadSeconds);
    buffer += config.segmentSeconds;
    sessionSamples.push(record.throughputKbps);
    if (record.phase === 'initial' && rtpKbps === undefined) initialSamples.push(record.throughputKbps);
    if (phase === 'initial' && buffer >= config.startupBufferSeconds) {
      if (Number.isNaN(startupSeconds)) startupSeconds = now;
      move('playing');
    }
  }
  return { segments, stalls, stallSeconds, startupSeconds };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

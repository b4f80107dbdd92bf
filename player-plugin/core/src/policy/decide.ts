import type { Phase, SammyParameters } from '../types.js';
import { selectBitrateKbps } from './bitrate.js';
import { paceRateRtp } from './pace-rate.js';

export interface BitrateDecisionInput {
  phase: Phase;
  /** This media type's ladder, kbps. */
  bitratesKbps: readonly number[];
  bufferLevelSeconds: number;
  /** Estimate from this session's samples, kbps. */
  sessionThroughputKbps: number | undefined;
  /** Estimate from initial-phase samples only (this and earlier sessions), kbps. */
  initialThroughputKbps: number | undefined;
  parameters: Readonly<SammyParameters>;
}

export interface BitrateDecision {
  bitrateKbps: number;
  /** The estimate the choice used, kbps. */
  throughputKbps: number | undefined;
}

/**
 * In the initial phase the estimate comes only from initial-phase samples (never paced ones,
 * which would drag the first picks of later sessions down: paper Fig. 6); once playing, from
 * this session's recent samples, paced or not — pacing keeps them above the Eq. 1 line.
 */
export function decideBitrate(input: BitrateDecisionInput): BitrateDecision {
  const throughputKbps = input.phase === 'initial' ? input.initialThroughputKbps : input.sessionThroughputKbps;
  const bitrateKbps = selectBitrateKbps({
    bitratesKbps: input.bitratesKbps,
    throughputKbps,
    bufferLevelSeconds: input.bufferLevelSeconds,
    beta: input.parameters.beta,
    lookaheadSeconds: input.parameters.lookaheadSeconds,
  });
  return { bitrateKbps, throughputKbps };
}

export interface PaceDecisionInput {
  phase: Phase;
  bufferLevelSeconds: number;
  maxBufferSeconds: number;
  /** What the pace must carry at 1×, kbps: top video bitrate + top audio bitrate. */
  topBitrateKbps: number;
  parameters: Readonly<SammyParameters>;
}

/** The `rtp` for a request (kbps, rounded to 100), or undefined: nothing is paced in the initial phase. */
export function decidePace(input: PaceDecisionInput): number | undefined {
  if (input.phase === 'initial' || !(input.topBitrateKbps > 0)) return undefined;
  return paceRateRtp({
    bufferLevelSeconds: input.bufferLevelSeconds,
    maxBufferSeconds: input.maxBufferSeconds,
    topBitrateKbps: input.topBitrateKbps,
    c0: input.parameters.c0,
    c1: input.parameters.c1,
  });
}

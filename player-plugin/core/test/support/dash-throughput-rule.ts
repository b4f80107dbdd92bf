/**
 * dash.js 5's ABR as the trace-driven simulation models it: its ThroughputRule — the rule a pace
 * can starve — and its InsufficientBufferRule, the lower of the two as dash.js's rules collection
 * takes it (not BOLA, which dash.js's dynamic strategy uses only from a 12 s buffer on, nor the
 * abandon rule). InsufficientBufferRule (5.2.1 defaults): from the third appended segment on, the
 * lowest rung when the buffer is empty (below the stall threshold, 0.3 s), else the highest at or
 * below the (unsafe) estimate × 0.7 × buffer seconds / segment seconds: at a buffer of one 4 s
 * segment, 0.7 × the estimate; at 2 s, 0.35 × (issue 39: below a few seconds of buffer the player's
 * own ABR is this careful, so Sammy must be as careful, not judged against a bolder model). Estimate as dash.js
 * 5.2.1 computes it by default: each sample is bytes over the transfer time without the
 * request's latency (ThroughputModel, useDeadTimeLatency), folded into two EWMAs weighted by
 * 0.0015 × download ms with half-lives of 3 and 8, each corrected for its start-up, the lower
 * one taken (ThroughputController.getEwma); the rule picks the highest rung at or below
 * estimate × bandwidthSafetyFactor (0.9). Before any sample it starts at the highest rung at
 * or below its initial bitrate (1000 kbps).
 *
 * Unpaced, it is the baseline ("dash.js default"); with a session core in pace-only mode it is
 * Sammy's pace-only arm: dash.js picks, Sammy paces, the initial phase stays unpaced.
 */
import { PRESETS, type SammyParameters } from '../../src/config.js';
import { memoryStore } from '../../src/initial-history.js';
import { paceShortfalls, type PlayerAbr } from '../../src/policy/pace-requirements.js';
import { createSession } from '../../src/session/session.js';
import type { SammyDecision } from '../../src/session/types.js';
import type { SimulatedRule, SimulationConfig } from './session-simulator.js';

export const DASH_BANDWIDTH_SAFETY_FACTOR = 0.9;
/** InsufficientBufferRule's parameters (dash.js 5.2.1: throughputSafetyFactor, segmentIgnoreCount) and dash.js's stall threshold, seconds. */
const INSUFFICIENT_BUFFER = { safetyFactor: 0.7, ignoreSegments: 2, emptySeconds: 0.3 };
const DASH_INITIAL_BITRATE_KBPS = 1000;
const EWMA = { fast: 3, slow: 8, weightPerMs: 0.0015 };

/** What the modelled rule needs from a pace: its estimate × 0.9 must reach the top rung, at every buffer level. */
export function modelledDashAbr(config: Pick<SimulationConfig, 'bufferTargetSeconds'>): PlayerAbr {
  return {
    name: 'dash.js (ThroughputRule model)',
    requirements: [
      {
        rule: `under the modelled ThroughputRule (bandwidthSafetyFactor ${DASH_BANDWIDTH_SAFETY_FACTOR})`,
        reason: `it picks the top rung only when the estimate × ${DASH_BANDWIDTH_SAFETY_FACTOR} reaches it`,
        throughputMultiple: 1 / DASH_BANDWIDTH_SAFETY_FACTOR,
        fromBufferSeconds: 0,
        toBufferSeconds: Infinity,
      },
    ],
    bufferTargetSeconds: config.bufferTargetSeconds,
    safetyFactor: DASH_BANDWIDTH_SAFETY_FACTOR,
    check: paceShortfalls,
    pace: PRESETS.paper,
  };
}

class DashEwma {
  private fast = 0;
  private slow = 0;
  private weight = 0;

  add(kbps: number, transferMs: number): void {
    const w = EWMA.weightPerMs * transferMs;
    const a = 0.5 ** (w / EWMA.fast);
    const b = 0.5 ** (w / EWMA.slow);
    this.fast = (1 - a) * kbps + a * this.fast;
    this.slow = (1 - b) * kbps + b * this.slow;
    this.weight += w;
  }

  /** kbps; undefined before any sample. */
  estimate(): number | undefined {
    if (this.weight <= 0) return undefined;
    const fast = this.fast / (1 - 0.5 ** (this.weight / EWMA.fast));
    const slow = this.slow / (1 - 0.5 ** (this.weight / EWMA.slow));
    return Math.min(fast, slow);
  }
}

/**
 * dash.js 5's own CMCD `rtp` (CmcdModel `_calculateRtp`, 5.2.1): 5 (`rtpSafetyFactor`) × the
 * segment's kilobits over the buffer level in seconds — floored to 100 ms, 0.5 s when empty —
 * rounded up to the next 100 kbps. A fixed multiple of the rung over the buffer: 4 s segments at
 * a 20 s buffer get 1× their rung, at 30 s 0.67×.
 */
export function dashJsRtpKbps(bitrateKbps: number, segmentSeconds: number, bufferSeconds: number): number {
  const bufferMs = Math.floor(bufferSeconds * 10) * 100 || 500;
  return (Math.floor((5 * bitrateKbps * segmentSeconds) / (bufferMs / 1000) / 100) + 1) * 100;
}

/**
 * The modelled ThroughputRule with dash.js's own rtp honoured by the server (`dashJsRtpKbps`):
 * the arm a user of dash.js gets for free with CMCD on. Its samples are what the paced
 * downloads measure, as dash.js's are.
 */
export function dashOwnRtpRule(): SimulatedRule {
  return (config) => {
    const inner = dashThroughputRule()(config);
    return {
      ...inner,
      request(bufferSeconds, playing) {
        const r = inner.request(bufferSeconds, playing);
        return { ...r, rtpKbps: dashJsRtpKbps(r.bitrateKbps, config.segmentSeconds, bufferSeconds) };
      },
    };
  };
}

/**
 * dash.js's ThroughputRule; with `pace`, Sammy's pace-only session (those parameters) adds the
 * pace, validated against `playerAbr` (default: the modelled rule's requirements).
 */
export function dashThroughputRule(pace?: Partial<SammyParameters>, playerAbr?: (config: SimulationConfig) => PlayerAbr): SimulatedRule {
  return (config) => {
    const ewma = new DashEwma();
    const ladder = [...config.videoLadderKbps].sort((a, b) => a - b);
    const topKbps = ladder.at(-1)!;
    const session = pace
      ? createSession({
          parameters: pace,
          initialHistory: memoryStore(config.initialHistoryKbps ?? []),
          playerAbr: (playerAbr ?? modelledDashAbr)(config),
        })
      : undefined;
    const start = session?.hasHistory ? session.startBitrateKbps() : DASH_INITIAL_BITRATE_KBPS;
    let last: SammyDecision | undefined;
    let playing = false;
    // Segments appended, for InsufficientBufferRule's ignore count.
    let appended = 0;
    return {
      request(bufferSeconds, isPlaying) {
        playing = isPlaying;
        const x = ewma.estimate();
        const throughputLimit = x === undefined ? start : Math.round(x) * DASH_BANDWIDTH_SAFETY_FACTOR;
        const { safetyFactor, ignoreSegments, emptySeconds } = INSUFFICIENT_BUFFER;
        const insufficientLimit =
          appended < ignoreSegments || x === undefined
            ? Infinity
            : bufferSeconds < emptySeconds
              ? 0
              : (x * safetyFactor * bufferSeconds) / config.segmentSeconds;
        const limit = Math.min(throughputLimit, insufficientLimit);
        const bitrateKbps = ladder.reduce((chosen, r) => (r <= limit ? r : chosen), ladder[0]!);
        if (!session) return { bitrateKbps, rtpKbps: undefined, phase: playing ? 'playing' : 'initial' };
        last = session.decide({
          mediaType: 'video',
          bitrateKbps,
          url: '/seg.m4s',
          tracks: {
            video: { ladderTopKbps: topKbps, bufferLevelSeconds: bufferSeconds },
            audio: { ladderTopKbps: config.audioKbps, bufferLevelSeconds: bufferSeconds },
          },
          bufferTargetSeconds: config.bufferTargetSeconds,
        });
        return { bitrateKbps, rtpKbps: last.paceRateKbps, phase: last.phase };
      },
      downloaded(kbits, seconds, transferSeconds) {
        appended += 1;
        ewma.add(Math.round(kbits / transferSeconds), transferSeconds * 1000);
        if (session && last) session.addSample(last, { bytes: (kbits * 1000) / 8, durationMs: seconds * 1000 });
      },
      playback: (event) => session?.playback(event),
    };
  };
}

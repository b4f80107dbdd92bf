/**
 * A closed-loop model of hls.js 1.7 playing one VOD stream on a link, with the server pacing each
 * response at the requested rtp, driven as the adapter drives the session core. hls.js's parts
 * that decide from paced downloads are modelled from its sources (src/controller/abr-controller.ts)
 * — the level choice (findBestLevel: abrBandWidthFactor to keep or go down, abrBandWidthUpFactor
 * to step up, the fetch-time test against the buffer, then the same with maxStarvationDelay),
 * the first pick (factor 1 on the default estimate), the emergency abandon rule (half the
 * fragment's duration, then the rest against the buffer) — and its bandwidth estimator is hls.js's
 * own class (src/utils/ewma-bandwidth-estimator.ts), fed as onFragBuffered feeds it.
 */
import { createSession, memoryStore, type SammyDecision, type SammyParameters } from 'sammy-pacing-core';
// hls.js's own estimator (shipped in its package's src/, not exported): the real EWMA arithmetic.
import EwmaBandWidthEstimator from '../../../../node_modules/hls.js/src/utils/ewma-bandwidth-estimator.js';
import { hlsAbrRequirements, HLS_ABR_DEFAULTS } from '../../src/abr-requirements.js';

export interface HlsAbrConfig {
  abrBandWidthFactor: number;
  abrBandWidthUpFactor: number;
  abrEwmaFastVoD: number;
  abrEwmaSlowVoD: number;
  abrEwmaDefaultEstimate: number;
  maxStarvationDelay: number;
  maxBufferLength: number;
}

export const HLS_DEFAULTS: HlsAbrConfig = {
  abrBandWidthFactor: HLS_ABR_DEFAULTS.abrBandWidthFactor,
  abrBandWidthUpFactor: HLS_ABR_DEFAULTS.abrBandWidthUpFactor,
  abrEwmaFastVoD: 3,
  abrEwmaSlowVoD: 9,
  abrEwmaDefaultEstimate: 500_000,
  maxStarvationDelay: 4,
  maxBufferLength: 30,
};

export interface Scenario {
  /** Link capacity, kbps. */
  linkKbps: number;
  /** Link capacity for the n-th request when it differs (a dip), kbps. */
  linkAt?: (n: number) => number | undefined;
  /** Variant BANDWIDTHs (video + audio), kbps, ascending. */
  ladderKbps: readonly number[];
  segmentSeconds: number;
  segments: number;
  /** Request latency (RTT + server), ms. */
  latencyMs: number;
  /** Share of wire bits that are headers and framing. */
  wireOverhead: number;
  /** Initial-phase history from earlier sessions, kbps. */
  historyKbps: readonly number[];
}

export const DEFAULT_SCENARIO: Omit<Scenario, 'linkKbps'> = {
  ladderKbps: [428, 878, 1628, 3128, 6128],
  segmentSeconds: 4,
  segments: 60,
  latencyMs: 40,
  wireOverhead: 0.04,
  historyKbps: [],
};

/** hls.js's requirements, or (model-only) none at all. */
function requirements(hls: HlsAbrConfig, skip: boolean) {
  const abr = hlsAbrRequirements(hls, hls.maxBufferLength);
  return skip ? { ...abr, requirements: [] } : abr;
}

export interface Segment {
  level: number;
  bitrateKbps: number;
  phase: 'initial' | 'playing';
  rtpKbps: number | undefined;
  bufferSeconds: number;
  abandoned: boolean;
}

export interface Outcome {
  segments: Segment[];
  stalls: number;
}

/** Runs one session: `mode` 'pace-only' (hls.js's ABR picks) or 'sammy' (Sammy's rule picks; hls.js's abandon rule stays). */
export function simulate(
  mode: 'sammy' | 'pace-only',
  scenario: Scenario,
  parameters: Partial<SammyParameters> = {},
  hls: HlsAbrConfig = HLS_DEFAULTS,
  /** Model-only: run a pace the validation would refuse (to show what it prevents). */
  options: { skipValidation?: boolean } = {},
): Outcome {
  const { ladderKbps, segmentSeconds: d } = scenario;
  const top = ladderKbps.length - 1;
  const session = createSession({
    parameters: { initialVideoBitrateKbps: hls.abrEwmaDefaultEstimate / 1000, ...parameters },
    initialHistory: memoryStore([...scenario.historyKbps]),
    playerAbr: mode === 'pace-only' ? requirements(hls, options.skipValidation === true) : undefined,
  });
  const defaultEstimate = mode === 'pace-only' && session.hasHistory ? session.startBitrateKbps() * 1000 : hls.abrEwmaDefaultEstimate;
  const estimator = new EwmaBandWidthEstimator(hls.abrEwmaSlowVoD, hls.abrEwmaFastVoD, defaultEstimate);
  const latency = scenario.latencyMs / 1000;
  let buffer = 0;
  let playing = false;
  let stalls = 0;
  let last = -1;
  const segments: Segment[] = [];
  session.playback({ type: 'load' });

  /** hls.js's findBestLevel: the highest level whose fetch fits, from an estimate in bps. */
  const findBestLevel = (bw: number, starvation: number, maxStarvation: number, factor: number, upFactor: number): number => {
    for (let i = top; i >= 0; i--) {
      const adjusted = (i > last ? upFactor : factor) * bw;
      const bitrate = ladderKbps[i]! * 1000;
      const fetch = latency + (bitrate * d) / adjusted;
      if (adjusted >= bitrate && (fetch <= latency || fetch < starvation + maxStarvation)) return i;
    }
    return -1;
  };
  const hlsLevel = (): number => {
    const bw = estimator.getEstimate();
    if (last === -1) {
      const first = findBestLevel(bw, buffer / 2, hls.maxStarvationDelay, 1, 1);
      return first === -1 ? 0 : first;
    }
    if (buffer > 0) {
      const best = findBestLevel(bw, buffer, 0, hls.abrBandWidthFactor, hls.abrBandWidthUpFactor);
      if (best >= 0) return best;
    }
    const best = findBestLevel(bw, buffer, Math.min(d, hls.maxStarvationDelay), hls.abrBandWidthFactor, hls.abrBandWidthUpFactor);
    return best >= 0 ? best : 0;
  };
  const advance = (dt: number) => {
    if (!playing) return;
    if (buffer >= dt) buffer -= dt;
    else {
      buffer = 0;
      playing = false;
      stalls++;
      session.playback({ type: 'waiting' });
    }
  };

  for (let n = 0; n < scenario.segments; n++) {
    if (playing && buffer > hls.maxBufferLength - d) advance(buffer - (hls.maxBufferLength - d));
    let level: number;
    if (mode === 'sammy') {
      const choice = session.chooseBitrate({ mediaType: 'video', ladderKbps, bufferLevelSeconds: buffer })!;
      level = ladderKbps.lastIndexOf(choice.bitrateKbps);
    } else level = hlsLevel();
    const decision: SammyDecision = session.decide({
      mediaType: 'video',
      bitrateKbps: ladderKbps[level]!,
      url: `/seg-${level}-${n}.m4s`,
      tracks: { video: { ladderTopKbps: ladderKbps[top]!, bufferLevelSeconds: buffer } },
      bufferTargetSeconds: hls.maxBufferLength,
    });
    const rate = Math.min(decision.paceRateKbps ?? Infinity, scenario.linkAt?.(n) ?? scenario.linkKbps);
    const kbits = ladderKbps[level]! * d;
    const transfer = kbits / (1 - scenario.wireOverhead) / rate;
    const total = latency + transfer;
    // The abandon rule (not on the lowest level): watching from half the duration, it aborts when the rest outlasts the buffer.
    const bufferAtCheck = playing ? buffer - d / 2 : buffer;
    const abandoned = level > 0 && total > d / 2 && total - d / 2 > bufferAtCheck && playing;
    segments.push({
      level,
      bitrateKbps: ladderKbps[level]!,
      phase: decision.phase,
      rtpKbps: decision.paceRateKbps,
      bufferSeconds: buffer,
      abandoned,
    });
    if (abandoned) {
      const spent = d / 2;
      const bytes = ((spent - latency) * rate * 1000) / 8;
      advance(spent);
      estimator.sample((spent - latency) * 1000, bytes);
      session.addSample(decision, { bytes, durationMs: spent * 1000 });
      last = Math.max(0, level - 1);
      n--; // the same fragment again, lower
      continue;
    }
    advance(total);
    buffer += d;
    const bytes = (kbits * 1000) / 8;
    // hls.js: bytes over the load time less the TTFB (onFragBuffered); Sammy: request to last byte.
    estimator.sample(transfer * 1000, bytes);
    session.addSample(decision, { bytes, durationMs: total * 1000 });
    last = level;
    if (!playing && buffer >= d) {
      playing = true;
      session.playback({ type: 'playing' });
    }
  }
  return { segments, stalls };
}

/**
 * A closed-loop session on a simulated link, in pure code: the player downloads 4 s segments
 * one at a time, the server paces each response at the requested rtp, and the link caps
 * everything — a constant rate, or a bandwidth trace (capacity over time, integrated over the
 * download: rate = min(capacity, pace)). Measured chunk throughput = bytes / (latency + transfer
 * time after header overhead); the buffer drains in simulated real time and every second
 * without media after playback started is rebuffering. Good enough to see whether a rule holds
 * the top rung, stalls, or spirals. Sammy here is the real session core (createSession), driven
 * as an adapter drives it.
 */
import { createSession } from '../../src/session/session.js';
import { memoryStore } from '../../src/initial-history.js';
import { type PlaybackEvent } from '../../src/policy/phase.js';
import { harmonicMeanKbps } from '../../src/policy/throughput.js';
import { type Phase } from '../../src/policy/types.js';
import type { SammyParameters } from '../../src/config.js';
import type { SammyDecision } from '../../src/session/types.js';
import { median as medianOf } from 'sammy-pacing-protocol/measure';
import type { TraceLink } from '../../src/traces/index.js';

/** Buffer level from which dash.js's fast switching refetches on a step up (a manifest without a declared segment duration), seconds. */
const FAST_SWITCH_FROM_SECONDS = 1.5;

export interface SimulationConfig {
  /** A constant link, kbps (ignored when `link` is set). */
  linkKbps: number;
  /** A link that follows a bandwidth trace. */
  link?: TraceLink;
  videoLadderKbps: readonly number[];
  audioKbps: number;
  segmentSeconds: number;
  segments: number;
  /** Per-request latency (RTT + server time), ms. */
  latencyMs: number;
  /** Share of the wire rate lost to HTTP/TCP headers. */
  wireOverhead: number;
  /** Buffer target: the player waits while the buffer is above this minus one segment. */
  bufferTargetSeconds: number;
  /** Buffer needed to start (or resume) playback, seconds. */
  startupBufferSeconds: number;
  /** Initial-phase samples from earlier sessions, kbps. */
  initialHistoryKbps?: number[];
  /**
   * dash.js's fast switching (`streaming.buffer.fastSwitchEnabled`, on by default): on a switch
   * up with at least 1.5 s buffered (a manifest without a declared segment duration), dash.js
   * refetches its buffer at the new rung (every buffered segment, as the lab saw) — those
   * downloads add no buffer, and each replaces what of its segment is still to play when it
   * arrives (`SimulationResult.played`).
   */
  fastSwitch?: boolean;
  /**
   * A session of this many seconds of wall time, as the lab's are: no request starts after it,
   * the buffer plays out (or stalls) until it, and `segments` is only the content's length.
   * Undefined: the session is `segments` downloads long.
   */
  sessionSeconds?: number;
}

export const DEFAULT_SIMULATION: Omit<SimulationConfig, 'linkKbps'> = {
  videoLadderKbps: [300, 750, 1500, 3000, 6000],
  audioKbps: 128,
  segmentSeconds: 4,
  segments: 90,
  latencyMs: 40,
  wireOverhead: 0.04,
  bufferTargetSeconds: 30,
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
  /** Of the transfer (after the request's latency), seconds during which the pace was below the link's capacity: the bottleneck had room to spare. */
  pacedSeconds: number;
  /** The rest of the transfer: seconds at the link's capacity (unpaced, or paced at or above it), when the video keeps the bottleneck's queue filled. */
  saturatedSeconds: number;
  /** Fetched again after a step up (fast switching): it adds no buffer. */
  refetch: boolean;
  /** The media segment it carries (0 for the first): a refetch carries one already buffered. */
  mediaIndex: number;
}

/** What a media segment plays at: from `fromFraction` of it on, `bitrateKbps` (a refetch replaces the rest of it that is still to play). */
export interface PlayedPart {
  fromFraction: number;
  bitrateKbps: number;
}

export interface SimulationResult {
  segments: SegmentRecord[];
  stalls: number;
  /** Time without media after playback first started, seconds. */
  stallSeconds: number;
  startupSeconds: number;
  /** Wall time from the first request to the end of the session, seconds. */
  sessionSeconds: number;
  /** Per media segment, in order, what it plays at (one part each without fast switching). */
  played: PlayedPart[][];
}

/** A rule for one simulated session: the bitrate and rtp of each request, fed what the player sees. */
export interface RuleInstance {
  request(bufferSeconds: number, playing: boolean): { bitrateKbps: number; rtpKbps: number | undefined; phase: Phase };
  /** A finished download: `seconds` from request to last byte, `transferSeconds` without the request's latency. */
  downloaded(kbits: number, seconds: number, transferSeconds: number): void;
  playback(event: PlaybackEvent): void;
}

export type SimulatedRule = (config: SimulationConfig) => RuleInstance;

/**
 * Sammy: the session core, with the calls the dash.js adapter makes. `unpaced`: the same rule
 * with no rtp honoured (what the rule alone settles on, to tell the pace's effect from the rule's).
 */
export function sammyRule(parameters: Partial<SammyParameters> = {}, options: { unpaced?: boolean } = {}): SimulatedRule {
  return (config) => {
    const session = createSession({
      parameters,
      initialHistory: memoryStore(config.initialHistoryKbps ?? []),
      bufferTargetSeconds: config.bufferTargetSeconds,
    });
    const topKbps = Math.max(...config.videoLadderKbps);
    let last: SammyDecision | undefined;
    return {
      request(bufferSeconds) {
        const stepUpRefetchSeconds = config.fastSwitch ? FAST_SWITCH_FROM_SECONDS : undefined;
        const choice = session.chooseBitrate({
          mediaType: 'video',
          ladderKbps: config.videoLadderKbps,
          bufferLevelSeconds: bufferSeconds,
          stepUpRefetchSeconds,
        });
        last = session.decide({
          mediaType: 'video',
          bitrateKbps: choice!.bitrateKbps,
          url: '/seg.m4s',
          tracks: {
            video: { ladderTopKbps: topKbps, bufferLevelSeconds: bufferSeconds },
            audio: { ladderTopKbps: config.audioKbps, bufferLevelSeconds: bufferSeconds },
          },
          bufferTargetSeconds: config.bufferTargetSeconds,
        });
        return { bitrateKbps: last.bitrateKbps, rtpKbps: options.unpaced ? undefined : last.paceRateKbps, phase: last.phase };
      },
      downloaded(kbits, seconds) {
        session.addSample(last!, { bytes: (kbits * 1000) / 8, durationMs: seconds * 1000 });
      },
      playback: (event) => session.playback(event),
    };
  };
}

/**
 * dash.js 5 with its built-in CMCD rtp honoured: throughput rule with its 0.9 safety factor,
 * and rtp = 5 × segment kbits / buffer seconds, rounded up to the next 100 (CmcdModel._calculateRtp).
 */
export function dashBuiltInRtpRule(): SimulatedRule {
  return (config) => {
    const samples: number[] = [];
    return {
      request(bufferSeconds, playing) {
        const x = harmonicMeanKbps(samples);
        const ladder = [...config.videoLadderKbps].sort((a, b) => a - b);
        let bitrateKbps = ladder[0]!;
        if (x !== undefined) for (const r of ladder) if (r <= 0.9 * x) bitrateKbps = r;
        const bufferMs = bufferSeconds > 0 ? bufferSeconds * 1000 : 500;
        const segmentKbits = bitrateKbps * config.segmentSeconds;
        const rtpKbps = (Math.floor((5 * segmentKbits) / (bufferMs / 1000) / 100) + 1) * 100;
        return { bitrateKbps, rtpKbps, phase: playing ? 'playing' : 'initial' };
      },
      downloaded: (kbits, seconds) => void samples.push(kbits / seconds),
      playback() {},
    };
  };
}

export function simulateSession(rule: SimulatedRule, config: SimulationConfig): SimulationResult {
  const sammy = rule(config);
  let now = 0;
  let buffer = 0;
  let playing = false; // the media element: plays out the buffer once started
  let started = false;
  let stalls = 0;
  let stallSeconds = 0;
  let startupSeconds = NaN;
  const segments: SegmentRecord[] = [];
  // Fast switching: the bitrate of the previous request, and refetches still to come.
  let lastBitrateKbps = Infinity;
  let replacing = 0;
  // Media segments downloaded (the buffer ends at the last one's end), and what each plays at.
  let mediaSegments = 0;
  const played: PlayedPart[][] = [];
  sammy.playback({ type: 'load' });

  const end = config.sessionSeconds ?? Infinity;
  /** Advances wall time by dt; plays out buffer when playing, counts rebuffering (within the session) when stalled. */
  const advance = (dt: number) => {
    const from = now;
    now += dt;
    if (!started) return;
    // Rebuffering from `at` to the interval's end, as far as it falls within the session.
    const stallFrom = (at: number) => Math.max(0, Math.min(now, end) - at);
    if (!playing) {
      stallSeconds += stallFrom(from);
      return;
    }
    if (buffer >= dt) {
      buffer -= dt;
      return;
    }
    if (from + buffer < end) stalls += 1;
    stallSeconds += stallFrom(from + buffer);
    buffer = 0;
    playing = false;
    sammy.playback({ type: 'waiting' });
  };

  for (let i = 0; i < config.segments && now < end; i++) {
    // The player idles while the buffer has no room for another segment.
    const room = config.bufferTargetSeconds - config.segmentSeconds;
    if (playing && buffer > room) advance(Math.min(buffer - room, end - now));
    if (now >= end) break;

    const { bitrateKbps, rtpKbps, phase } = sammy.request(buffer, playing);
    if (config.fastSwitch && bitrateKbps > lastBitrateKbps && buffer >= FAST_SWITCH_FROM_SECONDS) {
      // Every buffered segment, the one at the playhead too, as the lab's runs show (8.4 s buffered: 3 segments of 4 s).
      replacing = Math.ceil(buffer / config.segmentSeconds - 1e-9);
    }
    const mediaIndex = mediaSegments - replacing;
    lastBitrateKbps = bitrateKbps;
    const kbits = bitrateKbps * config.segmentSeconds;
    const latency = config.latencyMs / 1000;
    // On the wire the segment is larger by the header overhead; pace and capacity count wire bits.
    const wireKbits = kbits / (1 - config.wireOverhead);
    const transferSeconds = config.link
      ? config.link.transferSeconds(now + latency, wireKbits, rtpKbps ?? Infinity)
      : wireKbits / Math.min(rtpKbps ?? Infinity, config.linkKbps);
    const downloadSeconds = latency + transferSeconds;
    const pacedSeconds =
      rtpKbps === undefined
        ? 0
        : config.link
          ? pacedTime(config.link, now + latency, transferSeconds, rtpKbps)
          : rtpKbps < config.linkKbps
            ? transferSeconds
            : 0;
    segments.push({
      index: i,
      phase,
      bitrateKbps,
      paceKbps: rtpKbps,
      throughputKbps: kbits / downloadSeconds,
      bufferBeforeSeconds: buffer,
      startedAtSeconds: now,
      downloadSeconds,
      pacedSeconds,
      saturatedSeconds: transferSeconds - pacedSeconds,
      refetch: replacing > 0,
      mediaIndex,
    });
    advance(downloadSeconds);
    if (replacing > 0) {
      replacing -= 1;
      // It replaces what of its segment the playhead has not reached yet.
      const playheadSeconds = mediaSegments * config.segmentSeconds - buffer;
      const fromFraction = Math.max(0, playheadSeconds / config.segmentSeconds - mediaIndex);
      const parts = played[mediaIndex]!;
      if (fromFraction < 1) played[mediaIndex] = [...parts.filter((p) => p.fromFraction < fromFraction), { fromFraction, bitrateKbps }];
    } else {
      buffer += config.segmentSeconds;
      played[mediaSegments++] = [{ fromFraction: 0, bitrateKbps }];
    }
    sammy.downloaded(kbits, downloadSeconds, transferSeconds);
    if (!playing && buffer >= config.startupBufferSeconds) {
      if (Number.isNaN(startupSeconds)) startupSeconds = now;
      playing = started = true;
      sammy.playback({ type: 'playing' });
    }
  }
  if (now < end && end < Infinity) advance(end - now);
  return { segments, stalls, stallSeconds, startupSeconds, sessionSeconds: now, played };
}

/** Seconds of [start, start + seconds) in which the link's capacity exceeds the pace (sampled every 10 ms). */
function pacedTime(link: TraceLink, start: number, seconds: number, paceKbps: number): number {
  const dt = 0.01;
  let paced = 0;
  for (let t = 0; t < seconds; t += dt) if (link.capacityKbps(start + t) > paceKbps) paced += Math.min(dt, seconds - t);
  return paced;
}

/** Median, NaN for no values (so an assertion on it fails rather than passes). */
export function median(values: readonly number[]): number {
  return medianOf(values) ?? NaN;
}

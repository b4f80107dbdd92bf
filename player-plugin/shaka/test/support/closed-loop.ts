/**
 * A closed-loop Shaka session on a simulated link, driving the real adapter in the real Shaka
 * module (test/support/player.ts): Shaka's real NetworkingEngine, CMCD and SimpleAbrManager, the
 * adapter's real AbrManager and filters. The player model is Shaka's StreamingEngine in brief:
 * video and audio each fetch their next 4 s segment while their buffer is below the buffering goal
 * (10 s), one request at a time on one connection; playback starts once both hold one segment.
 * The server paces each response at the `rtp` it carried — or at a fixed multiple of the pace base
 * (`serverPaceMultiple`: what a pace Sammy would refuse does) — the link caps it, and payload is
 * the wire rate less `wireOverhead`. Shaka's samples are what its fetch plugin reports
 * (lib/net/http_fetch_plugin.js): a progress event once more than 100 ms and 16 kB arrived since the
 * last one, and one at the end; the first one counts the request's latency.
 */
import { vi } from 'vitest';
import { AUDIO_KBPS, setup, TOP_KBPS, type Options } from './player.js';
import type { Variant } from '../../src/shaka.js';
import { cmcdOf } from './player.js';

export interface LoopConfig {
  linkKbps: number;
  /** Per-request latency (RTT + server), ms. */
  latencyMs: number;
  /** Share of the wire rate that is not payload (headers, framing). */
  wireOverhead: number;
  segments: number;
  /** The server ignores rtp and paces every playing-phase response at this × the pace base. */
  serverPaceMultiple?: number;
}

export const LOOP_DEFAULTS: Omit<LoopConfig, 'linkKbps'> = { latencyMs: 10, wireOverhead: 0.04, segments: 30 };

export interface LoopSegment {
  kind: 'video' | 'audio';
  bitrateKbps: number;
  rtpKbps: number | undefined;
  phase: string;
}

const SEGMENT_S = 4;
const GOAL_S = 10;
const T0 = Date.UTC(2026, 0, 1);

export async function runLoop(options: Options, config: LoopConfig): Promise<{ segments: LoopSegment[]; stalls: number; video: number[] }> {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
  try {
    const ctx = await setup(options);
    let now = 0; // simulated seconds
    let playhead = 0;
    let playing = false;
    let stalls = 0;
    const end = { video: 0, audio: 0 };
    const abr = ctx.load();
    let current: Variant = abr.chooseVariant(true);
    abr.chooseVariant();
    abr.enable();
    const base = TOP_KBPS + AUDIO_KBPS;
    const segments: LoopSegment[] = [];
    const advance = (seconds: number) => {
      now += seconds;
      vi.setSystemTime(T0 + now * 1000);
      if (!playing) return;
      playhead += seconds;
      const stock = Math.min(end.video, end.audio);
      if (playhead > stock) {
        playhead = stock;
        playing = false;
        stalls++;
        ctx.element.fire('waiting');
      }
      ctx.element.currentTime = playhead;
      ctx.element.fire('timeupdate');
    };
    for (let i = 0; i < config.segments; i++) {
      for (const kind of ['video', 'audio'] as const) {
        const ahead = end[kind] - playhead;
        if (playing && ahead >= GOAL_S) advance(ahead - GOAL_S + 0.01);
        ctx.setBuffer({ video: end.video - playhead, audio: end.audio - playhead });
        current = ctx.switches.at(-1) ?? current;
        const stream = current[kind]!;
        const kbps = (stream.bandwidth ?? 0) / 1000;
        const bytes = (kbps * 1000 * SEGMENT_S) / 8;
        let rtp: number | undefined;
        let transferMs = 0;
        ctx.wire.respond = (sent) => {
          rtp = cmcdOf(sent).rtp as number | undefined;
          const pace = config.serverPaceMultiple !== undefined && playing ? config.serverPaceMultiple * base : (rtp ?? Infinity);
          const payloadKbps = Math.min(config.linkKbps, pace) * (1 - config.wireOverhead);
          transferMs = (bytes * 8) / payloadKbps;
          return { bytes, timeMs: config.latencyMs + transferMs };
        };
        await ctx.request(kind, { stream, segment: i });
        segments.push({ kind, bitrateKbps: kbps, rtpKbps: rtp, phase: ctx.decisions.at(-1)!.phase });
        // Shaka's progress events for this body, then the time it took.
        let last = 0;
        let lastBytes = 0;
        const totalMs = config.latencyMs + transferMs;
        for (let t = config.latencyMs + 5; ; t = Math.min(t + 5, totalMs)) {
          const got = Math.min(bytes, ((t - config.latencyMs) / transferMs) * bytes);
          const done = t >= totalMs;
          if ((t - last > 100 && got - lastBytes >= 16e3) || done) {
            vi.setSystemTime(T0 + (now + t / 1000) * 1000);
            abr.segmentDownloaded(t - last, done ? bytes - lastBytes : got - lastBytes, true);
            last = t;
            lastBytes = got;
          }
          if (done) break;
        }
        advance(totalMs / 1000);
        end[kind] += SEGMENT_S;
        if (!playing && end.video - playhead >= SEGMENT_S && end.audio - playhead >= SEGMENT_S) {
          playing = true;
          ctx.element.fire('playing');
        }
      }
    }
    ctx.sammy.detach();
    return { segments, stalls, video: segments.filter((s) => s.kind === 'video').map((s) => s.bitrateKbps) };
  } finally {
    vi.useRealTimers();
  }
}

/**
 * Small deterministic bandwidth traces for the trace-driven simulation (public trace files are
 * not committed yet): constant links, a step down and a step up, and a noisy "cellular-like"
 * family — a mean-reverting random walk of the log rate every 100 ms with short outages, from
 * a seeded generator. Each is written as text in one of the public formats and read back
 * through the parser, so the parser runs on real text.
 */
import { formatTrace, parseTrace, type BandwidthTrace, type RateStep, type TraceFormat } from '../../src/traces/index.js';
import { seededRandom } from '@sammy/test-support';

export interface NamedTrace {
  family: string;
  name: string;
  trace: BandwidthTrace;
  /** The mean capacity the trace was generated for, × the top bitrate. */
  multiple: number;
}

function throughText(format: TraceFormat, steps: RateStep[], periodSeconds: number, source: string): BandwidthTrace {
  return parseTrace(formatTrace(format, steps, periodSeconds), { source });
}

export function constantTrace(topKbps: number, multiple: number, format: TraceFormat = 'seconds-mbps'): NamedTrace {
  const name = `${multiple}×`;
  return { family: 'constant', name, multiple, trace: throughText(format, [{ startSeconds: 0, kbps: multiple * topKbps }], 1, name) };
}

/** `from`× the top bitrate until `atSeconds`, then `to`×, for `seconds` (1 s lines). */
export function stepTrace(topKbps: number, from: number, to: number, atSeconds = 120, seconds = 600): NamedTrace {
  const steps = Array.from({ length: seconds }, (_, i) => ({ startSeconds: i, kbps: (i < atSeconds ? from : to) * topKbps }));
  const name = `${from}×→${to}× at ${atSeconds} s`;
  return {
    family: from > to ? 'step-down' : 'step-up',
    name,
    multiple: (from * atSeconds + to * (seconds - atSeconds)) / seconds,
    trace: throughText('seconds-mbps', steps, seconds, name),
  };
}

/**
 * A cellular-like trace: log rate follows an Ornstein–Uhlenbeck walk (100 ms steps, reverting
 * within ~3 s, σ of the log ≈ 0.6), with an outage to 5% for 1–3 s about once a minute, scaled
 * to a mean of `multiple` × the top bitrate. Written in mahimahi's format.
 */
export function cellularTrace(topKbps: number, multiple: number, seed: number, seconds = 60): NamedTrace {
  const random = seededRandom(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const dt = 0.1;
  const theta = dt / 3;
  const sigma = 0.6 * Math.sqrt(2 * theta);
  let x = 0;
  let outage = 0;
  const raw: number[] = [];
  for (let i = 0; i < seconds / dt; i++) {
    x += -theta * x + sigma * gaussian();
    if (outage <= 0 && random() < dt / 60) outage = 1 + 2 * random();
    raw.push(Math.exp(x) * (outage > 0 ? 0.05 : 1));
    outage -= dt;
  }
  const scale = (multiple * topKbps) / (raw.reduce((a, b) => a + b, 0) / raw.length);
  const steps = raw.map((r, i) => ({ startSeconds: Math.round(i * dt * 10) / 10, kbps: r * scale }));
  const name = `cell ${multiple}× #${seed}`;
  return { family: 'cellular', name, multiple, trace: throughText('mahimahi', steps, seconds, name) };
}

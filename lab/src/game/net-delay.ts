/**
 * The game's delay in the network, independent of the endpoints' CPU: the router's delay line logs
 * every RTP packet to the client when it reached the router, when it left the bottleneck, or that
 * it was dropped, on its one clock (lab/delay/rtp.go). Packets are matched by (SSRC, sequence
 * number), frames grouped by (SSRC, RTP timestamp); a frame's network delay is its last packet out
 * minus its first packet in (propagation, queue and the frame's own serialization at the link).
 */
import { quantile } from '../stats.js';
import { delayFigures, type DelayFigures } from './metrics.js';

/** One line of the delay line's RTP log. */
export interface RtpEvent {
  kind: 'in' | 'out' | 'drop';
  /** ms since the epoch (µs precision). */
  tMs: number;
  srcPort: number;
  dstPort: number;
  ssrc: number;
  seq: number;
  rtpTs: number;
  payloadType: number;
  marker: boolean;
  /** IP packet bytes. */
  bytes: number;
}

const KINDS = { i: 'in', o: 'out', d: 'drop' } as const;

/** The log's lines (`i|o|d µs srcPort dstPort ssrc seq rtpTs pt marker bytes`); a line cut off by the read is skipped. */
export function parseRtpLog(text: string): RtpEvent[] {
  const out: RtpEvent[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    const kind = KINDS[f[0] as keyof typeof KINDS];
    if (!kind || f.length !== 10) continue;
    const n = f.slice(1).map(Number);
    if (n.some((x) => !Number.isInteger(x) || x < 0)) continue;
    out.push({
      kind,
      tMs: n[0]! / 1000,
      srcPort: n[1]!,
      dstPort: n[2]!,
      ssrc: n[3]!,
      seq: n[4]!,
      rtpTs: n[5]!,
      payloadType: n[6]!,
      marker: n[7] === 1,
      bytes: n[8]!,
    });
  }
  return out;
}

/** One RTP packet through the router: in, and out or dropped (neither: still queued when the log was read). */
export interface NetPacket {
  ssrc: number;
  seq: number;
  rtpTs: number;
  payloadType: number;
  bytes: number;
  inMs: number;
  outMs?: number;
  dropped: boolean;
}

/**
 * Pairs each packet's arrival with its release or drop: by (SSRC, sequence number), in time order,
 * so a sequence number used again after the 16-bit wrap pairs with its own arrival.
 */
export function matchPackets(events: readonly RtpEvent[]): NetPacket[] {
  const sorted = [...events].sort((a, b) => a.tMs - b.tMs || (a.kind === 'in' ? -1 : 0) - (b.kind === 'in' ? -1 : 0));
  const waiting = new Map<string, NetPacket[]>();
  const packets: NetPacket[] = [];
  for (const e of sorted) {
    const key = `${e.ssrc}:${e.seq}`;
    if (e.kind === 'in') {
      const p: NetPacket = {
        ssrc: e.ssrc,
        seq: e.seq,
        rtpTs: e.rtpTs,
        payloadType: e.payloadType,
        bytes: e.bytes,
        inMs: e.tMs,
        dropped: false,
      };
      packets.push(p);
      const q = waiting.get(key);
      if (q) q.push(p);
      else waiting.set(key, [p]);
      continue;
    }
    const p = waiting.get(key)?.shift();
    if (!p) continue; // released before the log's window began
    if (e.kind === 'out') p.outMs = e.tMs;
    else p.dropped = true;
  }
  return packets;
}

/** One game frame through the router. */
export interface NetFrame {
  rtpTs: number;
  firstInMs: number;
  /** Its last media packet in: the spread the sender's pacer gave the frame before the router saw it. */
  lastInMs: number;
  /** Its last packet out; with a loss, the last retransmission of it out (absent: never complete). */
  lastOutMs?: number;
  packets: number;
  dropped: number;
  /** lastOutMs − firstInMs. */
  delayMs?: number;
}

/**
 * The game's video frames: the SSRC carrying the most bytes is the media stream; the others (RTX
 * retransmissions and padding probes, audio if any) are not frames. A frame that lost a packet is
 * complete when a packet of another SSRC with its RTP timestamp (RFC 4588: a retransmission keeps
 * the original's) leaves after the loss; else it never completed in the network.
 */
export function groupFrames(packets: readonly NetPacket[]): { mediaSsrc?: number; frames: NetFrame[] } {
  const bytes = new Map<number, number>();
  for (const p of packets) bytes.set(p.ssrc, (bytes.get(p.ssrc) ?? 0) + p.bytes);
  const mediaSsrc = [...bytes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (mediaSsrc === undefined) return { frames: [] };
  const frames = new Map<number, NetFrame & { pending: number; resent: number; resentOutMs?: number }>();
  for (const p of packets) {
    if (p.ssrc !== mediaSsrc) continue;
    let f = frames.get(p.rtpTs);
    if (!f) {
      f = { rtpTs: p.rtpTs, firstInMs: p.inMs, lastInMs: p.inMs, packets: 0, dropped: 0, pending: 0, resent: 0 };
      frames.set(p.rtpTs, f);
    }
    f.packets++;
    f.firstInMs = Math.min(f.firstInMs, p.inMs);
    f.lastInMs = Math.max(f.lastInMs, p.inMs);
    if (p.dropped) f.dropped++;
    else if (p.outMs === undefined) f.pending++;
    else f.lastOutMs = Math.max(f.lastOutMs ?? 0, p.outMs);
  }
  for (const p of packets) {
    if (p.ssrc === mediaSsrc || p.outMs === undefined) continue;
    const f = frames.get(p.rtpTs);
    if (!f || f.dropped === 0 || p.outMs <= f.firstInMs) continue;
    f.resent++;
    f.resentOutMs = Math.max(f.resentOutMs ?? 0, p.outMs);
  }
  const out: NetFrame[] = [];
  for (const f of frames.values()) {
    // Complete once every packet left, a lost one through as many retransmissions as were lost.
    const done = f.pending === 0 && (f.dropped === 0 ? f.lastOutMs !== undefined : f.resent >= f.dropped);
    const lastOutMs = Math.max(f.lastOutMs ?? 0, f.resentOutMs ?? 0);
    out.push({
      rtpTs: f.rtpTs,
      firstInMs: f.firstInMs,
      lastInMs: f.lastInMs,
      packets: f.packets,
      dropped: f.dropped,
      ...(done ? { lastOutMs, delayMs: lastOutMs - f.firstInMs } : {}),
    });
  }
  return { mediaSsrc, frames: out.sort((a, b) => a.firstInMs - b.firstInMs) };
}

/** Delay figures over the completed frames, and what was lost. */
export interface GameNetMetrics extends DelayFigures {
  frames: number;
  /** Frames that never completed in the network (a packet lost and not retransmitted in time to be logged). */
  framesIncomplete: number;
  /** p95 of each frame's spread on arrival at the router (last media packet in − first): the sender's pacing, not the queue. */
  arrivalSpreadP95Ms?: number;
  /** Frames of which a packet was dropped at the bottleneck. */
  framesWithLoss: number;
  /** Media packets dropped at the bottleneck / media packets that reached it. */
  packetLossShare?: number;
  packets: number;
  /** One-way delay of the media packets that left, through the router (propagation and queue), ms. */
  packetP50Ms?: number;
  packetP95Ms?: number;
  /** Bytes of the media SSRC that left the bottleneck, Mbit/s over the window. */
  deliveredMbps?: number;
}

/** The game's network delay over frames whose first packet reached the router in [fromMs, toMs). */
export function gameNetMetrics(
  frames: readonly NetFrame[],
  packets: readonly NetPacket[],
  mediaSsrc: number | undefined,
  fromMs: number,
  toMs: number,
): GameNetMetrics {
  const inWindow = frames.filter((f) => f.firstInMs >= fromMs && f.firstInMs < toMs);
  const delays = inWindow.flatMap((f) => (f.delayMs === undefined ? [] : [f.delayMs]));
  const media = packets.filter((p) => p.ssrc === mediaSsrc && p.inMs >= fromMs && p.inMs < toMs);
  const seconds = (toMs - fromMs) / 1000;
  const delivered = media.reduce((s, p) => s + (p.outMs !== undefined ? p.bytes : 0), 0);
  const oneWay = media.flatMap((p) => (p.outMs !== undefined ? [p.outMs - p.inMs] : []));
  return {
    frames: inWindow.length,
    framesIncomplete: inWindow.length - delays.length,
    ...delayFigures(delays),
    arrivalSpreadP95Ms: quantile(
      inWindow.map((f) => f.lastInMs - f.firstInMs),
      0.95,
    ),
    framesWithLoss: inWindow.filter((f) => f.dropped > 0).length,
    packetLossShare: media.length ? media.filter((p) => p.dropped).length / media.length : undefined,
    packets: media.length,
    packetP50Ms: quantile(oneWay, 0.5),
    packetP95Ms: quantile(oneWay, 0.95),
    deliveredMbps: seconds > 0 && media.length ? (delivered * 8) / seconds / 1e6 : undefined,
  };
}

/** What a run keeps of the log: its frames (compact) and the media SSRC's packet counts. */
export interface GameNetRun {
  mediaSsrc?: number;
  /** [firstInMs, delayMs or -1 when incomplete, packets, dropped, lastInMs − firstInMs] per frame. */
  frames: Array<[number, number, number, number, number]>;
  /** [inMs, bytes, 1 dropped / 0 out / -1 pending, one-way delay ms (out only, else -1)] per media packet. */
  packets: Array<[number, number, number, number]>;
  /** Log lines read and the RTP events the delay line could not log (its log fell behind). */
  events: number;
}

export function summariseLog(text: string): GameNetRun {
  const events = parseRtpLog(text);
  const packets = matchPackets(events);
  const { mediaSsrc, frames } = groupFrames(packets);
  return {
    ...(mediaSsrc !== undefined ? { mediaSsrc } : {}),
    frames: frames.map((f) => [f.firstInMs, f.delayMs ?? -1, f.packets, f.dropped, f.lastInMs - f.firstInMs]),
    packets: packets
      .filter((p) => p.ssrc === mediaSsrc)
      .map((p) => [p.inMs, p.bytes, p.dropped ? 1 : p.outMs === undefined ? -1 : 0, p.outMs === undefined ? -1 : p.outMs - p.inMs]),
    events: events.length,
  };
}

/** The metrics of a kept run (its JSON) over a window. */
export function gameNetFromRun(run: GameNetRun, fromMs: number, toMs: number): GameNetMetrics {
  const frames: NetFrame[] = run.frames.map(([firstInMs, delayMs, packets, dropped, spreadMs]) => ({
    rtpTs: 0,
    firstInMs,
    lastInMs: firstInMs + (spreadMs ?? 0),
    packets,
    dropped,
    ...(delayMs >= 0 ? { delayMs } : {}),
  }));
  const packets: NetPacket[] = run.packets.map(([inMs, bytes, state, delayMs]) => ({
    ssrc: 0,
    seq: 0,
    rtpTs: 0,
    payloadType: 0,
    bytes,
    inMs,
    dropped: state === 1,
    ...(state === 0 ? { outMs: inMs + (delayMs ?? 0) } : {}),
  }));
  return gameNetMetrics(frames, packets, 0, fromMs, toMs);
}

/** Per-second bins of the frames' network delay (p50, p95, max) from `t0Ms`, for the timeline plot. */
export function netDelaySeries(run: GameNetRun, t0Ms: number): Array<{ t: number; p50Ms: number; p95Ms: number; maxMs: number }> {
  const bins = new Map<number, number[]>();
  for (const [firstInMs, delayMs] of run.frames) {
    if (delayMs < 0) continue;
    const b = Math.floor((firstInMs - t0Ms) / 1000);
    const list = bins.get(b);
    if (list) list.push(delayMs);
    else bins.set(b, [delayMs]);
  }
  return [...bins.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, ds]) => ({ t: b, p50Ms: quantile(ds, 0.5)!, p95Ms: quantile(ds, 0.95)!, maxMs: Math.max(...ds) }));
}

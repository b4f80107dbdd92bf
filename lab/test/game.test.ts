/**
 * The game-stream neighbour's parts that need no root: the frame stamp (drawn and read back through
 * lossy-looking pixels), the signalling mailbox on a real HTTP server on loopback, and the metrics
 * taken from the pages' records (latency percentiles, freezes, drops, bitrate, CPU limitation, clocks).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockSkewMs, freezesFromGaps, gameLatencies, gameMetrics, latencySeries } from '../src/game/metrics.js';
import { MAX_ROOMS, MAX_SIGNAL_BYTES, parseSignalPath, SignalMailbox, signalHandler } from '../src/game/signalling.js';
import {
  CELL_PX,
  drawStamp,
  readStamp,
  stampBits,
  stampFromBits,
  stampLatencyMs,
  STAMP_COLS,
  STAMP_HEIGHT_PX,
  STAMP_ROWS,
  STAMP_WIDTH_PX,
} from '../src/game/stamp.js';
import type { GamePageState, GameReceiverSample, GameRun, GameSenderSample } from '../src/game/state.js';

/** An RGBA raster with the 2D-context calls drawStamp uses. */
function raster(width: number, height: number) {
  const data = new Uint8ClampedArray(width * height * 4);
  const ctx = {
    fillStyle: '#000' as unknown,
    fillRect(x: number, y: number, w: number, h: number) {
      const v = ctx.fillStyle === '#fff' ? 255 : 0;
      for (let yy = y; yy < y + h; yy++) for (let xx = x; xx < x + w; xx++) data.set([v, v, v, 255], (yy * width + xx) * 4);
    },
  };
  return { data, ctx };
}

describe('frame stamp', () => {
  it('round-trips capture time and frame number through the drawn cells', () => {
    const t = 1_795_755_576_955.7;
    const { data, ctx } = raster(STAMP_WIDTH_PX, STAMP_HEIGHT_PX);
    drawStamp(ctx, t, 70_001);
    expect(readStamp(data, STAMP_WIDTH_PX)).toEqual({ captureMs: Math.floor(t) % 2 ** 40, frame: 70_001 % 65_536 });
  });

  it("reads through noise at the cells' edges, and from a frame scaled to half size", () => {
    const { data, ctx } = raster(STAMP_WIDTH_PX, STAMP_HEIGHT_PX);
    drawStamp(ctx, 1_700_000_000_123, 42);
    // Lossy coding smears edges: ±100 on every pixel outside each cell's centre half.
    for (let y = 0; y < STAMP_HEIGHT_PX; y++) {
      for (let x = 0; x < STAMP_WIDTH_PX; x++) {
        const cx = x % CELL_PX;
        const cy = y % CELL_PX;
        if (cx >= 4 && cx < 12 && cy >= 4 && cy < 12) continue;
        const p = (y * STAMP_WIDTH_PX + x) * 4;
        for (let c = 0; c < 3; c++) data[p + c] = data[p + c]! > 128 ? 155 : 100;
      }
    }
    expect(readStamp(data, STAMP_WIDTH_PX)?.frame).toBe(42);
    // Half size: each cell 8 px (the encoder scaled the frame down).
    const halfW = STAMP_WIDTH_PX / 2;
    const half = new Uint8ClampedArray(halfW * (STAMP_HEIGHT_PX / 2) * 4);
    for (let y = 0; y < STAMP_HEIGHT_PX / 2; y++)
      for (let x = 0; x < halfW; x++)
        half.set(data.subarray((2 * y * STAMP_WIDTH_PX + 2 * x) * 4, (2 * y * STAMP_WIDTH_PX + 2 * x) * 4 + 4), (y * halfW + x) * 4);
    expect(readStamp(half, halfW, 0.5)).toEqual({ captureMs: 1_700_000_000_123 % 2 ** 40, frame: 42 });
  });

  it('refuses a stamp with a flipped cell (checksum), instead of reporting a wrong time', () => {
    const bits = stampBits(1_700_000_000_000, 7);
    expect(bits).toHaveLength(STAMP_COLS * STAMP_ROWS);
    expect(stampFromBits(bits)).toEqual({ captureMs: 1_700_000_000_000 % 2 ** 40, frame: 7 });
    for (const k of [0, 20, 39, 45, 71]) {
      const flipped = bits.slice();
      flipped[k] = !flipped[k];
      expect(stampFromBits(flipped), `bit ${k}`).toBeUndefined();
    }
    // An all-black or all-white corner (no stamp) does not read either.
    expect(stampFromBits(bits.map(() => false))).toBeUndefined();
    expect(stampFromBits(bits.map(() => true))).toBeUndefined();
  });

  it('measures latency across the 2^40 wrap', () => {
    expect(stampLatencyMs(1_700_000_000_050.5, 1_700_000_000_000 % 2 ** 40)).toBeCloseTo(50.5);
    expect(stampLatencyMs(2 ** 40 + 10, 2 ** 40 - 20)).toBe(30);
  });
});

describe("signalling through the lab server's handler", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const handle = signalHandler(new SignalMailbox());
    server = createServer((req, res) => {
      if (!handle(req, res)) {
        res.statusCode = 418;
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const offer = { type: 'offer', sdp: 'v=0\r\na=candidate:1 1 udp 2113937151 10.247.2.2 40000 typ host\r\n' };

  it('hands the offer to the receiver and the answer back, per room', async () => {
    expect((await fetch(`${base}/lab/signal/r1/offer`)).status).toBe(404);
    expect((await fetch(`${base}/lab/signal/r1/offer`, { method: 'PUT', body: JSON.stringify(offer) })).status).toBe(204);
    const got = await fetch(`${base}/lab/signal/r1/offer`);
    expect(got.status).toBe(200);
    expect(got.headers.get('cache-control')).toBe('no-store');
    expect(await got.json()).toEqual(offer);
    // Another room sees nothing of it.
    expect((await fetch(`${base}/lab/signal/r2/offer`)).status).toBe(404);
    expect(
      (await fetch(`${base}/lab/signal/r1/answer`, { method: 'POST', body: JSON.stringify({ type: 'answer', sdp: 'v=0' }) })).status,
    ).toBe(204);
    expect(await (await fetch(`${base}/lab/signal/r1/answer`)).json()).toEqual({ type: 'answer', sdp: 'v=0' });
    // A new call in the room starts empty.
    expect((await fetch(`${base}/lab/signal/r1`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${base}/lab/signal/r1/offer`)).status).toBe(404);
  });

  it('refuses what is not an SDP of the right kind, too large, or elsewhere', async () => {
    expect((await fetch(`${base}/lab/signal/r3/offer`, { method: 'PUT', body: 'not json' })).status).toBe(400);
    expect(
      (await fetch(`${base}/lab/signal/r3/offer`, { method: 'PUT', body: JSON.stringify({ type: 'answer', sdp: 'v=0' }) })).status,
    ).toBe(400);
    expect(
      (
        await fetch(`${base}/lab/signal/r3/offer`, {
          method: 'PUT',
          body: JSON.stringify({ type: 'offer', sdp: 'x'.repeat(MAX_SIGNAL_BYTES) }),
        })
      ).status,
    ).toBe(413);
    expect((await fetch(`${base}/lab/signal/r3/bogus`)).status).toBe(404);
    expect((await fetch(`${base}/lab/signal/r3/offer`, { method: 'PATCH' })).status).toBe(405);
    expect((await fetch(`${base}/lab/signal/r3/offer`)).status).toBe(404);
    expect((await fetch(`${base}/lab/other`)).status).toBe(418);
    expect(parseSignalPath('/lab/signal/a%2Fb/offer')).toBeUndefined();
    expect(parseSignalPath('/lab/signal/run-1.x/answer?t=1')).toEqual({ room: 'run-1.x', kind: 'answer' });
  });

  it('keeps at most MAX_ROOMS rooms, dropping the oldest', () => {
    const m = new SignalMailbox();
    for (let i = 0; i <= MAX_ROOMS; i++) m.post(`room${i}`, 'offer', '{}');
    expect(m.rooms).toBe(MAX_ROOMS);
    expect(m.read('room0', 'offer')).toBeUndefined();
    expect(m.read(`room${MAX_ROOMS}`, 'offer')).toBe('{}');
  });
});

function page(role: 'send' | 'recv', extra: Partial<GamePageState>): GamePageState {
  return {
    role,
    settings: { width: 640, height: 360, fps: 30, maxKbps: 24000 },
    frames: [],
    unreadable: 0,
    drawn: 0,
    drawLateMs: [],
    sender: [],
    receiver: [],
    localCandidates: [],
    errors: [],
    ...extra,
  };
}

/** A 10-s call from t = 1000 s: 30 fps shown, latency 20 ms, then 80 ms from 5 s, one 500 ms freeze at 7 s. */
function syntheticRun(offsets = { tx: 0, rx: 0 }, rtts = { tx: 1, rx: 1 }): GameRun {
  const T0 = 1_000_000;
  const frames: number[] = [];
  let frame = 0;
  for (let t = T0; t < T0 + 10_000; t += 1000 / 30) {
    frame++;
    if (t > T0 + 7000 && t < T0 + 7500) continue; // frozen: these frames never show
    const latency = t < T0 + 5000 ? 20 : 80;
    // Page clocks: the receiver's shown time on its clock; the stamp's latency carries rx − tx.
    frames.push(t + offsets.rx, latency + (offsets.rx - offsets.tx), frame);
  }
  const rx: GameReceiverSample[] = [];
  const tx: GameSenderSample[] = [];
  for (let s = 0; s <= 10; s++) {
    rx.push({
      t: T0 + s * 1000 + offsets.rx,
      bytesReceived: s * 1_000_000,
      framesDropped: s >= 8 ? 3 : 0,
      freezeCount: s >= 8 ? 1 : 0,
      totalFreezesDuration: s >= 8 ? 0.5 : 0,
      jitterMs: s < 5 ? 2 : 10,
      pairRttMs: 6,
      jitterBufferDelay: s * 0.6,
      jitterBufferEmittedCount: s * 30,
      frameWidth: 640,
      frameHeight: 360,
    });
    tx.push({
      t: T0 + s * 1000 + offsets.tx,
      rttMs: 7,
      targetBitrate: 8e6,
      qualityLimitationDurations: { none: 0, bandwidth: s * 0.8, cpu: s * 0.2, other: 0 },
      codec: 'video/VP8',
    });
  }
  return {
    settings: { width: 640, height: 360, fps: 30, maxKbps: 24000 },
    startedAt: T0 - 5000,
    flowingAt: T0 - 4000,
    sender: page('send', { sender: tx, drawLateMs: [1, 2, 3, 40] }),
    receiver: page('recv', { receiver: rx, frames, unreadable: 2 }),
    senderClock: { offsetMs: offsets.tx, rttMs: rtts.tx },
    receiverClock: { offsetMs: offsets.rx, rttMs: rtts.rx },
  };
}

describe("game metrics from the pages' records", () => {
  it('computes latency percentiles, shares over 50/100 ms, freezes, drops, bitrate, RTT, jitter and the CPU share', () => {
    const run = syntheticRun();
    const m = gameMetrics(run, 1_000_000, 1_010_000);
    expect(m.seconds).toBe(10);
    expect(m.latencyP50Ms).toBe(20);
    expect(m.latencyP95Ms).toBe(80);
    expect(m.latencyP99Ms).toBe(80);
    // 5 s at 20 ms, 4.5 s shown at 80 ms.
    expect(m.over50Share).toBeCloseTo(135 / 285, 2);
    expect(m.over100Share).toBe(0);
    expect(m.framesShown).toBe(285);
    expect(m.framesMissing).toBe(15);
    expect(m.unreadable).toBe(2);
    expect(m.freezes).toBe(1);
    expect(m.freezeSeconds).toBeCloseTo(0.5);
    expect(m.gapFreezes).toBe(1);
    expect(m.gapFreezeSeconds).toBeCloseTo(0.5, 1);
    expect(m.framesDropped).toBe(3);
    expect(m.receivedMbps).toBeCloseTo(8);
    expect(m.rttMs).toBe(7);
    expect(m.pairRttMs).toBe(6);
    expect(m.jitterMs).toBe(10);
    expect(m.jitterBufferMs).toBeCloseTo(20);
    expect(m.targetMbps).toBe(8);
    expect(m.cpuLimitedShare).toBeCloseTo(0.2);
    expect(m.bandwidthLimitedShare).toBeCloseTo(0.8);
    expect(m.cpuLimited).toBe(true);
    expect(m.codec).toBe('video/VP8');
    expect(m.drawLateP95Ms).toBeGreaterThan(3); // interpolated between 3 and 40
  });

  it('restricts everything to the window asked for', () => {
    const m = gameMetrics(syntheticRun(), 1_000_000, 1_004_900);
    expect(m.latencyP95Ms).toBe(20);
    expect(m.freezes).toBe(0);
    expect(m.framesDropped).toBe(0);
    expect(m.receivedMbps).toBeCloseTo(8);
  });

  it("takes a measured clock skew off the stamps only when it exceeds the measurement's uncertainty", () => {
    // Receiver 30 ms ahead of the sender, measured to ±1 ms: corrected.
    const skewed = syntheticRun({ tx: 0, rx: 30 }, { tx: 1, rx: 1 });
    expect(clockSkewMs(skewed)).toEqual({ skewMs: 30, measuredMs: 30, uncertaintyMs: 1 });
    expect(gameMetrics(skewed, 1_000_000, 1_004_900).latencyP50Ms).toBe(20);
    expect(gameLatencies(skewed, 1_000_000, 1_004_900).every((l) => l === 20)).toBe(true);
    // 3 ms apart but measured with 10-ms round trips: no evidence of skew, nothing taken off.
    const noisy = syntheticRun({ tx: 0, rx: 3 }, { tx: 10, rx: 10 });
    expect(clockSkewMs(noisy).skewMs).toBe(0);
    expect(gameMetrics(noisy, 1_000_000, 1_004_900).latencyP50Ms).toBe(23);
  });

  it('bins latency over time for the timeline plot', () => {
    const s = latencySeries(syntheticRun(), 1_000_000, 1000);
    expect(s[0]).toMatchObject({ t: 0, p50Ms: 20, p95Ms: 20 });
    expect(s.find((b) => b.t === 6)).toMatchObject({ p50Ms: 80 });
    expect(s.some((b) => b.t === 7)).toBe(true);
  });

  it("counts freezes by WebRTC's rule on frame gaps", () => {
    const steady = Array.from({ length: 100 }, (_, i) => i * 33);
    expect(freezesFromGaps(steady)).toEqual({ count: 0, totalMs: 0 });
    const withGap = [...steady, 3300 + 400, 3300 + 433];
    expect(freezesFromGaps(withGap).count).toBe(1);
    // A 150 ms gap at 30 fps is under max(3 × 33, 33 + 150): no freeze.
    expect(freezesFromGaps([...steady, 3267 + 150]).count).toBe(0);
  });
});

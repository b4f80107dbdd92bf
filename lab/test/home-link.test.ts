/**
 * The home link (issue 40), no root: `--link home` and its queue kinds on the command line, and the
 * game's network delay from the delay line's RTP log (packet matching, frames by RTP timestamp,
 * retransmissions, the metrics and runs.csv columns) on synthetic lines and on a log captured from a
 * real run (test/fixtures/rtp-home-fifo-2bdp.log).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCliArgs } from '../src/cli-options.js';
import { gameNetFromRun, gameNetMetrics, groupFrames, matchPackets, parseRtpLog, summariseLog } from '../src/game/net-delay.js';
import { HOME_BDP_BYTES, HOME_QUEUE_SPECS } from '../src/home-link.js';
import type { RunMetrics } from '../src/measurements.js';
import { metricsCsv } from '../src/report.js';

const config = (args: string[]) => {
  const parsed = parseCliArgs(args);
  if (parsed.help) throw new Error('help');
  return parsed.config;
};

describe('--link home and --queue', () => {
  it('sets 40 Mbit/s, 40 ms and each queue kind; fifo-2bdp by default', () => {
    expect(HOME_BDP_BYTES).toBe(200_000);
    const c = config(['--link', 'home']);
    expect([c.rateMbps, c.rttMs, c.homeQueue, c.queueBytes]).toEqual([40, 40, 'fifo-2bdp', 400_000]);
    expect(config(['--link', 'home', '--queue', 'fifo-bloated']).queueBytes).toBe(1_500_000);
    expect(config(['--link', 'home', '--queue', 'fq-codel'])).toMatchObject({
      homeQueue: 'fq-codel',
      queueBytes: HOME_QUEUE_SPECS['fq-codel'].queueBytes,
    });
  });

  it("keeps the paper's link as the default, with --queue BYTES", () => {
    const c = config(['--queue', '50000']);
    expect([c.rateMbps, c.rttMs, c.queueBytes, c.homeQueue]).toEqual([40, 5, 50_000, undefined]);
  });

  it('refuses what cannot go together, saying what to change', () => {
    expect(() => config(['--link', 'office'])).toThrow(/--link must be one of paper, home/);
    expect(() => config(['--link', 'home', '--queue', '400000'])).toThrow(/--queue must be one of fifo-2bdp, fifo-bloated, fq-codel/);
    expect(() => config(['--link', 'home', '--queue', 'codel'])).toThrow(/fifo-2bdp, fifo-bloated, fq-codel, got codel/);
    expect(() => config(['--queue', 'fq-codel'])).toThrow(/add --link home/);
    expect(() => config(['--link', 'home', '--rate', '20'])).toThrow(/leave --rate and --rtt-ms out/);
    expect(() => config(['--link', 'home', '--rtt-ms', '5'])).toThrow(/leave --rate and --rtt-ms out/);
    expect(() => config(['--link', 'home', '--trace', 'x'])).toThrow(/cannot go with --trace/);
  });
});

/** A log line as the delay line writes it. */
const line = (kind: 'i' | 'o' | 'd', ms: number, ssrc: number, seq: number, ts: number, bytes = 1200, pt = 96) =>
  `${kind} ${Math.round(ms * 1000)} 40000 50000 ${ssrc} ${seq} ${ts} ${pt} 0 ${bytes}`;

describe("the game's network delay from the RTP log", () => {
  it('parses the lines and skips a line cut off by the read', () => {
    const ev = parseRtpLog(
      [line('i', 1000.5, 7, 1, 90), line('o', 1030, 7, 1, 90), 'o 1031000 40000 50000 7 2', 'x 1 2 3 4 5 6 7 8 9', ''].join('\n'),
    );
    expect(ev).toEqual([
      { kind: 'in', tMs: 1000.5, srcPort: 40000, dstPort: 50000, ssrc: 7, seq: 1, rtpTs: 90, payloadType: 96, marker: false, bytes: 1200 },
      { kind: 'out', tMs: 1030, srcPort: 40000, dstPort: 50000, ssrc: 7, seq: 1, rtpTs: 90, payloadType: 96, marker: false, bytes: 1200 },
    ]);
  });

  it('matches each release to its own arrival, also when a sequence number comes round again', () => {
    // Log order is not time order (arrivals are written when they reach the link, stamped with the router's read time).
    const events = parseRtpLog(
      [
        line('o', 1025, 7, 5, 90),
        line('i', 1000, 7, 5, 90),
        line('i', 1002, 7, 6, 90),
        line('d', 1003, 7, 6, 90),
        line('i', 9000, 7, 5, 99),
        line('o', 9021, 7, 5, 99),
      ].join('\n'),
    );
    const packets = matchPackets(events);
    expect(packets.map((p) => [p.seq, p.inMs, p.outMs, p.dropped])).toEqual([
      [5, 1000, 1025, false],
      [6, 1002, undefined, true],
      [5, 9000, 9021, false],
    ]);
  });

  it('groups frames by RTP timestamp: last packet out minus first packet in; a loss through its retransmission', () => {
    const media = 0xaaaa;
    const rtx = 0xbbbb;
    const log = [
      // frame 1000: 3 packets, out at 1022..1030 → 30 ms
      line('i', 1000, media, 1, 1000),
      line('i', 1001, media, 2, 1000),
      line('i', 1002, media, 3, 1000),
      line('o', 1022, media, 1, 1000),
      line('o', 1026, media, 2, 1000),
      line('o', 1030, media, 3, 1000),
      // frame 4000: its second packet dropped, retransmitted on the RTX SSRC → complete at 1140
      line('i', 1033, media, 4, 4000),
      line('i', 1034, media, 5, 4000),
      line('o', 1060, media, 4, 4000),
      line('d', 1034, media, 5, 4000),
      line('i', 1120, rtx, 1, 4000, 1210, 97),
      line('o', 1140, rtx, 1, 4000, 1210, 97),
      // frame 7000: a loss never retransmitted → incomplete
      line('i', 1066, media, 6, 7000),
      line('d', 1066, media, 6, 7000),
      // frame 10000: one packet still queued when the log was read → incomplete
      line('i', 1100, media, 7, 10000),
    ].join('\n');
    const packets = matchPackets(parseRtpLog(log));
    const { mediaSsrc, frames } = groupFrames(packets);
    expect(mediaSsrc).toBe(media);
    expect(frames.map((f) => [f.rtpTs, f.packets, f.dropped, f.delayMs])).toEqual([
      [1000, 3, 0, 30],
      [4000, 2, 1, 107],
      [7000, 1, 1, undefined],
      [10000, 1, 0, undefined],
    ]);
    const m = gameNetMetrics(frames, packets, mediaSsrc, 0, 2000);
    expect(m).toMatchObject({ frames: 4, framesIncomplete: 2, framesWithLoss: 2, packets: 7, over50Share: 0.5, over100Share: 0.5 });
    // One way per media packet that left: 22, 25, 28 and 27 ms (quantiles interpolate).
    expect(m.packetP50Ms).toBeCloseTo(26, 6);
    expect(m.packetP95Ms).toBeCloseTo(27.85, 6);
    expect(m.packetLossShare).toBeCloseTo(2 / 7, 10);
    expect(m.p50Ms).toBeCloseTo(68.5, 6);
    // The window picks frames by their first packet in.
    expect(gameNetMetrics(frames, packets, mediaSsrc, 1010, 2000).frames).toBe(3);
    // What a run keeps gives the same figures.
    const kept = summariseLog(log);
    expect(gameNetFromRun(kept, 0, 2000)).toEqual(m);
  });
});

describe('runs.csv', () => {
  it("has the game's network delay columns", () => {
    const m = {
      arm: 'sammy',
      neighbour: 'game',
      index: 1,
      errors: 0,
      homeQueue: 'fifo-2bdp',
      gameNet: {
        frames: 10,
        framesIncomplete: 0,
        packets: 40,
        p50Ms: 21.5,
        p95Ms: 60.25,
        p99Ms: 80,
        over50Share: 0.1,
        over100Share: 0,
        packetLossShare: 0.01,
      },
    } as unknown as RunMetrics;
    const [head, row] = metricsCsv([m])
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const col = (name: string) => row![head!.indexOf(name)];
    expect([col('queue'), col('game_net_p50_ms'), col('game_net_p95_ms'), col('game_net_p99_ms'), col('game_net_loss')]).toEqual([
      '"fifo-2bdp"',
      '21.5',
      '60.25',
      '80',
      '0.01',
    ]);
  });
});

const FIXTURE = join(import.meta.dirname, 'fixtures', 'rtp-home-fifo-2bdp.log');

describe('a log captured from a real home-link run (fifo-2bdp, the game beside unpaced dash.js)', () => {
  const read = () => {
    const text = readFileSync(FIXTURE, 'utf8');
    const events = parseRtpLog(text);
    const packets = matchPackets(events);
    return { text, events, packets, ...groupFrames(packets) };
  };

  it("reads every line and pairs every packet with its arrival, each within the link's bounds", () => {
    const { text, events, packets } = read();
    expect(events.length).toBe(text.trim().split('\n').length);
    // The fixture holds the packets that reached the router in a 410 ms window, and every event of theirs.
    expect(packets.filter((p) => p.outMs !== undefined).length).toBe(events.filter((e) => e.kind === 'out').length);
    expect(packets.filter((p) => p.dropped).length).toBe(events.filter((e) => e.kind === 'drop').length);
    // One way through the router: 20 ms of propagation, at most the 2 × BDP queue's 80 ms more (and a packet's 0.3 ms).
    for (const p of packets)
      if (p.outMs !== undefined) {
        expect(p.outMs - p.inMs).toBeGreaterThanOrEqual(20);
        expect(p.outMs - p.inMs).toBeLessThan(101);
      }
  });

  it("takes the video's SSRC, and completes the frame that lost 13 packets at the full queue through their 13 retransmissions", () => {
    const { mediaSsrc, frames, packets } = read();
    expect(mediaSsrc).toBe(653073496);
    expect(frames.length).toBe(7);
    const lossy = frames.filter((f) => f.dropped > 0);
    expect(lossy.map((f) => [f.rtpTs, f.dropped])).toEqual([[2219010769, 13]]);
    const resent = packets.filter((p) => p.ssrc !== mediaSsrc && p.rtpTs === lossy[0]!.rtpTs);
    expect(resent.length).toBe(13);
    expect(lossy[0]!.delayMs).toBe(Math.max(...resent.map((p) => p.outMs!)) - lossy[0]!.firstInMs);
    expect(lossy[0]!.delayMs!).toBeGreaterThan(200);
    // A frame without a loss: its arrival spread (the sender's pacer) plus one way through the router.
    for (const f of frames.filter((x) => x.dropped === 0)) {
      expect(f.delayMs!).toBeGreaterThanOrEqual(f.lastInMs - f.firstInMs + 20);
      expect(f.delayMs!).toBeLessThan(f.lastInMs - f.firstInMs + 101);
    }
  });
});

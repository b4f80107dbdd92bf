/**
 * The paced UDP neighbour and the base-RTT probe, one small program run inside a namespace:
 *
 *   udp-flow send    --to IP --port P --rate-mbps 5 --payload 1200 --seconds S
 *   udp-flow receive --bind IP --port P --out FILE        (until SIGTERM; writes FILE then exits)
 *   udp-flow echo    --bind IP --port P                   (until SIGTERM)
 *   udp-flow ping    --to IP --port P --count N           (prints one JSON line of RTTs, ms)
 *   udp-flow probe   --to IP --port P --count N --interval-ms I  (RTTs of N probes sent on a clock, and the lost ones)
 *
 * Each datagram carries its send time on CLOCK_MONOTONIC (process.hrtime), which every namespace
 * on the host shares, so the receiver's difference is the true one-way delay.
 */
import dgram from 'node:dgram';
import { writeFileSync } from 'node:fs';
import { arg } from '../args.js';

const nowNs = (): bigint => process.hrtime.bigint();
const HEADER = 16; // seq (u64) + send time (u64 ns)

/** Paces datagrams at a constant rate: each tick sends whatever is due, so timer slack does not lower the rate. */
function send(): void {
  const to = arg('to');
  const port = Number(arg('port'));
  const payload = Math.max(HEADER, Number(arg('payload', '1200')));
  const rateBps = Number(arg('rate-mbps', '5')) * 1e6;
  const seconds = Number(arg('seconds'));
  const intervalNs = BigInt(Math.round(((payload * 8) / rateBps) * 1e9));
  const sock = dgram.createSocket('udp4');
  const start = nowNs();
  const end = start + BigInt(Math.round(seconds * 1e9));
  let seq = 0n;
  const buf = Buffer.alloc(payload);
  const tick = (): void => {
    const now = nowNs();
    if (now >= end) {
      sock.close();
      console.log(JSON.stringify({ sent: Number(seq) }));
      return;
    }
    // Bounded catch-up: never more than 8 datagrams in one tick.
    for (let i = 0; i < 8 && start + seq * intervalNs <= now; i++) {
      buf.writeBigUInt64BE(seq, 0);
      buf.writeBigUInt64BE(nowNs(), 8);
      sock.send(buf, port, to);
      seq++;
    }
    setTimeout(tick, 1);
  };
  tick();
}

function receive(): void {
  const sock = dgram.createSocket('udp4');
  // [receive time ms since epoch, seq, one-way delay ms]
  const rows: Array<[number, number, number]> = [];
  sock.on('message', (msg) => {
    if (msg.length < HEADER) return;
    const owdMs = Number(nowNs() - msg.readBigUInt64BE(8)) / 1e6;
    if (rows.length < 2_000_000) rows.push([Date.now(), Number(msg.readBigUInt64BE(0)), owdMs]);
  });
  const finish = (): void => {
    writeFileSync(arg('out'), JSON.stringify(rows));
    process.exit(0);
  };
  process.on('SIGTERM', finish);
  process.on('SIGINT', finish);
  sock.bind(Number(arg('port')), arg('bind'), () => console.log('ready'));
}

function echo(): void {
  const sock = dgram.createSocket('udp4');
  sock.on('message', (msg, rinfo) => sock.send(msg, rinfo.port, rinfo.address));
  process.on('SIGTERM', () => process.exit(0));
  sock.bind(Number(arg('port')), arg('bind'), () => console.log('ready'));
}

/** Round trips through the bottleneck with an empty queue: the bench's base RTT (includes Node's own latency). */
function ping(): void {
  const to = arg('to');
  const port = Number(arg('port'));
  const count = Number(arg('count', '20'));
  const sock = dgram.createSocket('udp4');
  const rtts: number[] = [];
  let sentAt = 0n;
  const next = (): void => {
    if (rtts.length >= count) {
      sock.close();
      console.log(JSON.stringify({ rttMs: rtts }));
      return;
    }
    sentAt = nowNs();
    sock.send(Buffer.alloc(64), port, to);
  };
  sock.on('message', () => {
    rtts.push(Number(nowNs() - sentAt) / 1e6);
    setTimeout(next, 20);
  });
  setTimeout(() => {
    console.log(JSON.stringify({ rttMs: rtts, timeout: true }));
    process.exit(0);
  }, 10_000).unref();
  sock.bind(0, next);
}

/**
 * Probes sent on a clock, not after each answer: a probe lost in a full queue does not hold up the
 * next ones, and under load each meets the queue as it stands (the home link's check).
 */
function probe(): void {
  const to = arg('to');
  const port = Number(arg('port'));
  const count = Number(arg('count', '50'));
  const intervalMs = Number(arg('interval-ms', '50'));
  const sock = dgram.createSocket('udp4');
  const sent = new Map<number, bigint>();
  const rtts: number[] = [];
  sock.on('message', (msg) => {
    const at = sent.get(msg.readUInt32BE(0));
    if (at !== undefined) rtts.push(Number(nowNs() - at) / 1e6);
  });
  let seq = 0;
  sock.bind(0, () => {
    const timer = setInterval(() => {
      const b = Buffer.alloc(64);
      b.writeUInt32BE(seq, 0);
      sent.set(seq, nowNs());
      sock.send(b, port, to);
      if (++seq >= count) {
        clearInterval(timer);
        // Answers still queued behind a bloated buffer arrive within a second or two.
        setTimeout(() => {
          console.log(JSON.stringify({ rttMs: rtts, sent: count, lost: count - rtts.length }));
          sock.close();
        }, 3000);
      }
    }, intervalMs);
  });
}

const mode = process.argv[2];
if (mode === 'send') send();
else if (mode === 'receive') receive();
else if (mode === 'echo') echo();
else if (mode === 'probe') probe();
else if (mode === 'ping') ping();
else {
  console.error('usage: udp-flow send|receive|echo|ping|probe …');
  process.exit(2);
}

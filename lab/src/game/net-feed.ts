/**
 * The demo's live view of the game's network delay: follows the delay line's RTP log as it grows
 * and answers with the last 30 s of frames, [first packet in (ms since the epoch), delay ms].
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { groupFrames, matchPackets, parseRtpLog, type RtpEvent } from './net-delay.js';

const KEEP_MS = 30_000;

export class NetDelayFeed {
  private offset = 0;
  private partial = '';
  private events: RtpEvent[] = [];

  constructor(private readonly file: string) {}

  /** Reads what the log gained since the last call; returns the frames completed in the last 30 s. */
  frames(): Array<[number, number]> {
    if (existsSync(this.file)) {
      const size = statSync(this.file).size;
      if (size > this.offset) {
        const fd = openSync(this.file, 'r');
        try {
          const buf = Buffer.alloc(size - this.offset);
          readSync(fd, buf, 0, buf.length, this.offset);
          this.offset = size;
          const text = this.partial + buf.toString('utf8');
          const cut = text.lastIndexOf('\n');
          this.partial = text.slice(cut + 1);
          this.events.push(...parseRtpLog(text.slice(0, cut + 1)));
        } finally {
          closeSync(fd);
        }
      }
    }
    const newest = this.events.reduce((a, e) => Math.max(a, e.tMs), 0);
    this.events = this.events.filter((e) => e.tMs >= newest - KEEP_MS - 2000);
    const { frames } = groupFrames(matchPackets(this.events));
    return frames.flatMap((f) =>
      f.delayMs !== undefined && f.firstInMs >= newest - KEEP_MS
        ? [[Math.round(f.firstInMs), Math.round(f.delayMs * 10) / 10] as [number, number]]
        : [],
    );
  }
}

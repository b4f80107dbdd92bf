/**
 * Userspace pacing: a token bucket between the response stream and the socket, for where the
 * kernel cannot pace (macOS, Windows, TLS sockets, a failing setsockopt) or when forced. The body
 * is held (held-response.ts) and leaves at the pace rate in bursts of at most `burstMs` worth.
 */
import type { ServerResponse } from 'node:http';
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';
import { holdResponse, type HeldResponse } from './held-response.js';

/** Largest burst, in milliseconds of data at the pace rate (the kernel sends ~1 ms per burst). */
export const DEFAULT_BURST_MS = 20;
/** Smallest burst, bytes: keeps timer wake-ups few at low rates. */
const MIN_BURST_BYTES = 16 * 1024;

export type UserspacePacer = HeldResponse;

/**
 * Pacing only until the kernel takes over: Linux does not pace a connection's first 10 segments
 * (tcp_update_skb_after_send: `data_segs_out >= 10`), so on a new kernel-paced connection those go
 * out one segment per burst from here, and once `done()` the rest is handed to the socket at once.
 */
export interface HandOff {
  /** Burst size, bytes (one segment: the socket's MSS). */
  burstBytes: number;
  /** Checked after each burst; true once the kernel paces the connection. */
  done(): boolean;
}

export function paceResponseInUserspace(
  res: ServerResponse,
  paceKbps: number,
  burstMs: number = DEFAULT_BURST_MS,
  handOff?: HandOff,
): UserspacePacer {
  // A token bucket counts bytes: the pace in the bucket's unit.
  const bytesPerSecond = kbpsToBytesPerSecond(paceKbps);
  const burstBytes = handOff ? Math.max(1, handOff.burstBytes) : Math.max(MIN_BURST_BYTES, Math.round((bytesPerSecond * burstMs) / 1000));
  let tokens = burstBytes;
  let refilledAt = performance.now();
  return holdResponse(res, {
    allowance() {
      const now = performance.now();
      tokens = Math.min(burstBytes, tokens + ((now - refilledAt) * bytesPerSecond) / 1000);
      refilledAt = now;
      return tokens;
    },
    // Wait for half a bucket between sends: fewer wake-ups, and a late timer still has room before the bucket overflows.
    minimumBytes: burstBytes / 2,
    took(n) {
      tokens -= n;
    },
    waitMs: (need, allowed) => ((need - allowed) * 1000) / bytesPerSecond,
    done: handOff && (() => handOff.done()),
  });
}

/**
 * Userspace pacing: a token bucket between the response stream and the socket, for where the
 * kernel cannot pace (macOS, Windows, TLS sockets, a failing setsockopt) or when forced. The body
 * is held (held-body.ts) and leaves at the pace in bursts of at most `burstMs` worth.
 */
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';
import type { AckTracker } from '../socket/ack-tracker.js';
import type { ReleasePolicy } from './held-body.js';
import type { TcpInfo } from '../socket/tcp-info.js';

/** Largest burst, in milliseconds of data at the pace (the kernel sends ~1 ms per burst). */
export const DEFAULT_BURST_MS = 20;
/** Smallest burst, bytes: keeps timer wake-ups few at low rates. */
const MIN_BURST_BYTES = 16 * 1024;
/** Linux paces a connection only from its 10th data segment on (tcp_update_skb_after_send: `data_segs_out >= 10`). */
const KERNEL_UNPACED_SEGMENTS = 10;
/**
 * Paced in userspace until the kernel takes over only when its unpaced segments would add up to more
 * than one TSO packet (the step the kernel paces in anyway); at a 1448-byte MSS (14 KB unpaced) the
 * userspace steps cost more than they save (origin/middleware/README.md, "Every response at its own pace").
 */
const MIN_UNPACED_LEAD_BYTES = 64 * 1024;

/** The body at `paceKbps`, in bursts of `burstMs` of data. */
export function userspacePacing(paceKbps: number, burstMs: number): ReleasePolicy {
  const burstBytes = Math.max(MIN_BURST_BYTES, Math.round((kbpsToBytesPerSecond(paceKbps) * burstMs) / 1000));
  return tokenBucket(paceKbps, burstBytes);
}

/**
 * A new kernel-paced connection with large segments (loopback: 64 KB) would send its first ones unpaced,
 * hundreds of KB at once: those go one segment per burst from here, and once the kernel paces the
 * connection the rest is handed to the socket at once. Undefined where the kernel's lead is small.
 */
export function kernelHandOff(paceKbps: number, info: TcpInfo | undefined, acks: AckTracker): ReleasePolicy | undefined {
  if (info?.dataSegsOut === undefined) return undefined;
  const unpacedLeadBytes = Math.max(0, KERNEL_UNPACED_SEGMENTS - info.dataSegsOut) * info.sndMss;
  if (unpacedLeadBytes <= MIN_UNPACED_LEAD_BYTES) return undefined;
  return tokenBucket(
    paceKbps,
    Math.max(1, info.sndMss),
    () => (acks.dataSegmentsOut() ?? KERNEL_UNPACED_SEGMENTS) >= KERNEL_UNPACED_SEGMENTS,
  );
}

function tokenBucket(paceKbps: number, burstBytes: number, done?: () => boolean): ReleasePolicy {
  // A token bucket counts bytes: the pace in the bucket's unit.
  const bytesPerSecond = kbpsToBytesPerSecond(paceKbps);
  let tokens = burstBytes;
  let refilledAt = performance.now();
  return {
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
    done,
  };
}

/**
 * How often a connection reads its TCP_INFO, HTTP/1.1 and HTTP/2 alike: the kernel tells no one when
 * bytes are acknowledged, so each connection polls, often near the end of what is left (where a
 * record's end time is read) and seldom while nothing drains.
 */
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';
import type { TcpInfo } from './tcp-info.js';

export const MIN_POLL_MS = 2;
export const MAX_POLL_MS = 250;
/** While nothing drains, acknowledgements are checked this often per progress timeout, and at least every 5 s. */
const PROGRESS_CHECKS_PER_TIMEOUT = 8;
const MAX_PROGRESS_CHECK_MS = 5000;

/** Wait before the next progress check while nothing is draining, ms. */
export function progressCheckMs(progressTimeoutMs: number): number {
  return Math.min(MAX_PROGRESS_CHECK_MS, Math.max(MIN_POLL_MS, progressTimeoutMs / PROGRESS_CHECKS_PER_TIMEOUT));
}

/**
 * Wait before the next read while `leftBytes` drain, ms: half the time they should take at the best
 * known rate (`unknownRateMs` without one), and no sooner than a fraction of a round trip, before
 * which no acknowledgement can come.
 */
export function drainPollMs(leftBytes: number, kernelPaceKbps: number | undefined, info: TcpInfo | undefined, unknownRateMs: number): number {
  const rate = drainBytesPerSecond(kernelPaceKbps, info);
  const min = Math.max(MIN_POLL_MS, (info?.rttUs ?? 0) / 4000);
  return Math.min(MAX_POLL_MS, Math.max(min, rate ? (leftBytes * 1000) / rate / 2 : unknownRateMs));
}

/** The rate a connection's queue drains at, best known: the kernel pace, or the latest delivery-rate sample if lower. */
function drainBytesPerSecond(kernelPaceKbps: number | undefined, info: TcpInfo | undefined): number | undefined {
  // Runs on every poll of every busy connection: plain comparisons, nothing allocated.
  const pace = kernelPaceKbps === undefined ? undefined : kbpsToBytesPerSecond(kernelPaceKbps);
  const delivery = info?.deliveryRate === undefined ? undefined : Number(info.deliveryRate);
  const paceKnown = pace !== undefined && pace > 0 && Number.isFinite(pace);
  const deliveryKnown = delivery !== undefined && delivery > 0 && Number.isFinite(delivery);
  if (paceKnown && deliveryKnown) return Math.min(pace, delivery);
  return paceKnown ? pace : deliveryKnown ? delivery : undefined;
}

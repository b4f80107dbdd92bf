import { KBPS_PER_FASTLY_PACE_UNIT } from './units.js';

/** Fastly's floor for `client.socket.pace`, in KB/s. */
export const FASTLY_MIN_PACE = 128;

/**
 * Default lowest pace a server applies, in kbps (= Fastly's floor, 1024 kbps).
 * A lower `rtp` is raised to it: a client asking for a trickle must not tie up
 * a server connection for minutes (slow-read abuse).
 */
export const DEFAULT_MIN_PACE_KBPS = FASTLY_MIN_PACE * KBPS_PER_FASTLY_PACE_UNIT;

/** Default highest pace a server applies, in kbps (1 Gbps); a higher `rtp` is lowered to it. */
export const DEFAULT_MAX_PACE_KBPS = 1_000_000;

/** Clamps a requested `rtp` (kbps) into [min, max]. */
export function clampPaceKbps(rtpKbps: number, minKbps: number = DEFAULT_MIN_PACE_KBPS, maxKbps: number = DEFAULT_MAX_PACE_KBPS): number {
  return Math.min(maxKbps, Math.max(minKbps, rtpKbps));
}

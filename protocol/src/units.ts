/**
 * Units of the pace rate as it crosses each boundary.
 *
 * CMCD `rtp` (CTA-5004) is in kilobits per second, an integer rounded to the nearest 100.
 * Linux `SO_MAX_PACING_RATE` takes bytes per second; Fastly's `client.socket.pace` takes
 * kilobytes per second. One kbps is 1000 bits/s = 125 bytes/s; one KB/s (Fastly) is 8 kbps.
 */

/** CTA-5004 rounds `rtp` to this step, in kbps. */
export const RTP_STEP_KBPS = 100;

/** Bytes per second in one kbps. */
export const BYTES_PER_SECOND_PER_KBPS = 125;

/** Kilobits per second in one Fastly pace unit (KB/s). */
export const KBPS_PER_FASTLY_PACE_UNIT = 8;

/** Rounds a rate to a valid CMCD `rtp` value: the nearest 100 kbps, never below 100. */
export function roundRtpKbps(kbps: number): number {
  if (!Number.isFinite(kbps) || kbps <= 0) {
    throw new RangeError(`pace rate must be a positive finite number of kbps, got ${kbps}`);
  }
  return Math.max(RTP_STEP_KBPS, Math.round(kbps / RTP_STEP_KBPS) * RTP_STEP_KBPS);
}

export function kbpsToBytesPerSecond(kbps: number): number {
  return kbps * BYTES_PER_SECOND_PER_KBPS;
}

export function bytesPerSecondToKbps(bytesPerSecond: number): number {
  return bytesPerSecond / BYTES_PER_SECOND_PER_KBPS;
}

/** kbps to Fastly's `client.socket.pace` unit (KB/s). */
export function kbpsToFastlyPace(kbps: number): number {
  return kbps / KBPS_PER_FASTLY_PACE_UNIT;
}

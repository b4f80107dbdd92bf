/**
 * Why a response was not paced, or not paced at the rtp it asked for: one bounded vocabulary, read by
 * people in the network panel (Server-Timing `desc`) and by operators as a metric label. Codes are
 * snake_case (Prometheus label values); the text is what a person reads.
 */

/** Why a response went unpaced (`sammy-pace;dur=0;desc="none: <text>"`). */
export const UNPACED_REASONS = {
  rtp_absent: 'rtp absent',
  rtp_not_a_number: 'rtp not a number',
  rtp_not_positive: 'rtp not positive',
  cmcd_malformed: 'CMCD malformed',
  cmcd_too_large: 'CMCD over 4 KB',
  cmcd_repeated: 'CMCD parameter repeated',
  pacing_off: 'pacing off',
} as const;
export type UnpacedReason = keyof typeof UNPACED_REASONS;

/** An rtp the server could not use: every unpaced reason but "absent" and "pacing off". */
export type IgnoredRtpReason = Exclude<UnpacedReason, 'rtp_absent' | 'pacing_off'>;

/** Why a paced response's pace differs from its rtp (`sammy-rtp;dur=<rtp>;desc="<text>"`). */
export const RTP_CLAMPS = {
  below_floor: 'raised to floor',
  above_ceiling: 'lowered to ceiling',
} as const;
export type RtpClamp = keyof typeof RTP_CLAMPS;

export function isUnpacedReason(value: unknown): value is UnpacedReason {
  return typeof value === 'string' && Object.hasOwn(UNPACED_REASONS, value);
}

/** The code whose text is `text`, if any. */
export function unpacedReasonFromText(text: string): UnpacedReason | undefined {
  return (Object.keys(UNPACED_REASONS) as UnpacedReason[]).find((code) => UNPACED_REASONS[code] === text);
}

export function rtpClampFromText(text: string): RtpClamp | undefined {
  return (Object.keys(RTP_CLAMPS) as RtpClamp[]).find((code) => RTP_CLAMPS[code] === text);
}

/** How an rtp of `rtpKbps` is clamped into [minKbps, maxKbps]; undefined when it is used as it is. */
export function rtpClamp(rtpKbps: number, minKbps: number, maxKbps: number): RtpClamp | undefined {
  if (rtpKbps < minKbps) return 'below_floor';
  if (rtpKbps > maxKbps) return 'above_ceiling';
  return undefined;
}

/**
 * Optional per-connection congestion control a client may ask for (experiments pin it).
 * Servers honour it only when configured to; the header never reaches a cache key.
 */
export const CONGESTION_CONTROL_HEADER = 'Sammy-Congestion-Control';

export const CONGESTION_CONTROLS = ['cubic', 'reno', 'bbr'] as const;
export type CongestionControl = (typeof CONGESTION_CONTROLS)[number];

export function isCongestionControl(value: unknown): value is CongestionControl {
  return typeof value === 'string' && (CONGESTION_CONTROLS as readonly string[]).includes(value);
}

/** TCP_INFO figures in the units Server-Timing and the delivery records use. */
import { bytesPerSecondToKbps, type PacingReport } from 'sammy-pacing-protocol';
import type { TcpInfo } from './tcp-info.js';

/** Rates at or above this are the kernel's "unlimited" (~0), not a measurement. */
const UNLIMITED_RATE = 1n << 62n;

function rateKbps(bytesPerSecond: bigint | undefined): number | undefined {
  if (bytesPerSecond === undefined || bytesPerSecond >= UNLIMITED_RATE) return undefined;
  return bytesPerSecondToKbps(Number(bytesPerSecond));
}

export function tcpInfoReport(info: TcpInfo | undefined): PacingReport | undefined {
  if (!info) return undefined;
  return {
    rttMs: info.rttUs / 1000,
    minRttMs: info.minRttUs === undefined ? undefined : info.minRttUs / 1000,
    deliveryRateKbps: rateKbps(info.deliveryRate),
    retransmits: info.totalRetrans,
    pacingRateKbps: rateKbps(info.pacingRate),
  };
}

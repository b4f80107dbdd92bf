/** Display formats of the summary panel; '–' stands for "not measured yet". */
const NONE = '–';

/** A rate in kbps as Mbps, with enough digits for the ladder's low rungs. */
export function formatRate(kbps: number | undefined): string {
  if (kbps === undefined || !Number.isFinite(kbps)) return NONE;
  const mbps = kbps / 1000;
  return `${mbps >= 100 ? mbps.toFixed(0) : mbps >= 10 ? mbps.toFixed(1) : mbps.toFixed(2)} Mbps`;
}

/** A duration in ms as ms below a second, else seconds. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return NONE;
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A fraction as a signed percentage: −0.613 → "−61.3 %". */
export function formatSignedPercent(fraction: number | undefined): string {
  if (fraction === undefined || !Number.isFinite(fraction)) return NONE;
  const pct = fraction * 100;
  const sign = pct > 0.05 ? '+' : pct < -0.05 ? '−' : '±';
  return `${sign}${Math.abs(pct).toFixed(1)} %`;
}

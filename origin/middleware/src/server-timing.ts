/** Server-Timing: each paced response says what paces it, readable by pages on other origins too. */
import type { ServerResponse } from 'node:http';
import { formatServerTiming, type PacingReport } from 'sammy-pacing-protocol';

function appendHeader(res: ServerResponse, name: string, value: string): void {
  const existing = res.getHeader(name);
  if (existing === undefined) res.setHeader(name, value);
  else if (!String(existing).split(',').some((v) => v.trim().toLowerCase() === value.toLowerCase())) {
    res.setHeader(name, `${String(existing)}, ${value}`);
  }
}

/** Writes `report` into the response's Server-Timing (before its head is written). */
export function writeServerTiming(res: ServerResponse, report: PacingReport): void {
  appendHeader(res, 'Server-Timing', formatServerTiming(report));
  if (!res.hasHeader('Timing-Allow-Origin')) res.setHeader('Timing-Allow-Origin', '*');
  appendHeader(res, 'Access-Control-Expose-Headers', 'Server-Timing');
}

/**
 * `sammy-pacing-core/traces`: bandwidth traces in the two public formats (mahimahi; `[seconds
 * Mbps]` of Pensieve, FCC, HSDPA, Puffer), auto-detected, and a link that follows one, looped.
 * Pure and browser-safe, shared by the plugin's trace-driven simulation and the lab.
 *
 *   import { parseTrace, TraceLink, meanKbps } from 'sammy-pacing-core/traces';
 *   const trace = parseTrace(readFileSync(file, 'utf8'), { source: file });
 *   const link = new TraceLink(trace);
 *   link.transferSeconds(startSeconds, kbits, paceKbps); // at min(capacity, pace)
 */
export { detectTraceFormat, parseTrace, TraceFormatError, type ParseTraceOptions } from './parse.js';
export { formatMahimahi, formatSecondsMbps, formatTrace } from './format.js';
export {
  MAHIMAHI_PACKET_BYTES,
  MAHIMAHI_PACKET_KBITS,
  meanKbps,
  TraceLink,
  type BandwidthTrace,
  type RateStep,
  type TraceFormat,
} from './trace.js';

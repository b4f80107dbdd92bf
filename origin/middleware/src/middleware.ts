/**
 * `sammyPacing()`: Express middleware that paces each response at the CMCD `rtp` the request carries.
 * Put it before `express.static` (or any handler that writes the body). It reads the rtp, hands the
 * response to the pacing engine (engine.ts), which lets the next handler run once the pace is set.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { RequestHandler } from 'express';
import {
  clampPaceKbps,
  formatServerTiming,
  pathOf,
  readCmcdRequest,
  rtpClamp,
  withoutCmcd,
  type PacingReport,
  type UnpacedReason,
} from 'sammy-pacing-protocol';
import type { DeliveryRecordLog } from './records/log.js';
import type { DeliveryObserver, EngineMechanism } from './engine/contract.js';
import { PacingEngine } from './pacing-engine.js';
import { PacingMetrics, type SammyMetrics } from './metrics/metrics.js';
import { resolveOptions, type SammyPacingOptions } from './options.js';

export interface SammyPacingHandler extends RequestHandler {
  /** The same middleware on node:http2's compatibility API (HTTP/2 requests share their connection's pace). */
  (req: Http2ServerRequest, res: Http2ServerResponse, next: (err?: unknown) => void): void;
  /** Mechanism paced responses use (a response whose socket cannot be paced in the kernel falls back to userspace). */
  readonly mechanism: EngineMechanism;
  readonly records: DeliveryRecordLog;
  /** The Prometheus metrics' registry when `metrics` is enabled (serve it with `sammyMetricsEndpoint`). */
  readonly metrics: SammyMetrics | undefined;
  /** Responses not yet recorded (in flight, or waiting for their last byte to be acknowledged). */
  readonly activeResponses: number;
  /** Stops waiting on deliveries; call when the server closes. */
  close(): void;
}

export function sammyPacing(options: SammyPacingOptions = {}): SammyPacingHandler {
  const { minPaceKbps, maxPaceKbps, records, metrics: metricsOptions, engine: settings } = resolveOptions(options);
  const metrics = metricsOptions && new PacingMetrics(metricsOptions);
  const observers: DeliveryObserver[] = [{ paced: writeServerTiming }, { delivered: (record) => records.add(record) }];
  if (metrics) {
    observers.push(metrics);
    settings.events = metrics.event;
  }
  const engine = new PacingEngine(settings, observers);

  const handler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void => {
    // The URL as it reached this middleware: records keep this path (a router mounted later,
    // e.g. express.static under /media, rewrites req.url).
    const url = req.url ?? '/';
    const path = pathOf(url);
    // Allocated now so the response can carry it (Server-Timing sammy-id): a client matches each
    // response to its own record by id.
    const recordId = records.allocateId();
    const cmcd = readCmcdRequest(req);
    const reading = cmcd.rtp;
    if (reading.kind === 'invalid') settings.log.debug(`sammy: ignored CMCD (${reading.source}) on ${path}: ${reading.reason}`);
    // The CMCD parameter changes on every request: it must never reach a file path or a cache key.
    req.url = withoutCmcd(url);
    const requestedRtpKbps = reading.kind === 'rtp' ? reading.rtpKbps : undefined;
    const plannedPaceKbps =
      requestedRtpKbps !== undefined && engine.mechanism !== 'none' ? clampPaceKbps(requestedRtpKbps, minPaceKbps, maxPaceKbps) : undefined;
    // Why, should this response go unpaced (Server-Timing says it, metrics count it).
    const unpacedReason: UnpacedReason =
      engine.mechanism === 'none'
        ? 'pacing_off'
        : reading.kind === 'invalid'
          ? reading.code
          : reading.kind === 'none'
            ? 'rtp_absent'
            : 'pacing_off';
    const clamp = plannedPaceKbps === undefined ? undefined : rtpClamp(requestedRtpKbps!, minPaceKbps, maxPaceKbps);
    metrics?.requested({ reading, rtpClamp: clamp });
    engine.deliver(
      req,
      res,
      { recordId, path, requestedRtpKbps, plannedPaceKbps, objectType: cmcd.objectType, unpacedReason, rtpClamp: clamp },
      next,
    );
  };

  return Object.defineProperties(handler as unknown as SammyPacingHandler, {
    mechanism: { value: engine.mechanism, enumerable: true },
    records: { value: records, enumerable: true },
    metrics: { value: metrics, enumerable: true },
    activeResponses: { get: () => engine.activeResponses, enumerable: true },
    close: { value: () => engine.close() },
  });
}

/** Server-Timing: each paced response says what paces it, readable by pages on other origins too. */
function appendHeader(res: ServerResponse, name: string, value: string): void {
  const existing = res.getHeader(name);
  if (existing === undefined) res.setHeader(name, value);
  else if (
    !String(existing)
      .split(',')
      .some((v) => v.trim().toLowerCase() === value.toLowerCase())
  ) {
    res.setHeader(name, `${String(existing)}, ${value}`);
  }
}

/** Writes `report` into the response's Server-Timing (before its head is written). */
export function writeServerTiming(res: ServerResponse, report: PacingReport): void {
  appendHeader(res, 'Server-Timing', formatServerTiming(report));
  if (!res.hasHeader('Timing-Allow-Origin')) res.setHeader('Timing-Allow-Origin', '*');
  appendHeader(res, 'Access-Control-Expose-Headers', 'Server-Timing');
}

/**
 * `sammyMetricsEndpoint()`: serves the metrics registry at `/metrics` for Prometheus to scrape, under
 * the same host rule as the records (loopback names and `allowedHosts` only), since an operator's
 * figures are not a page's to read through a rebinding DNS name.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathOf } from 'sammy-pacing-protocol';
import type { SammyMetrics } from './metrics.js';
import { checkOptions, wrongType, type OptionChecks } from '../option-check.js';
import { hostCheck, isAllowedHosts, type SammyRecordsOptions } from '../records/handler.js';

export const METRICS_PATH = '/metrics';

export interface SammyMetricsEndpointOptions {
  /** As the records' `allowedHosts`: host names besides loopback's the metrics answer under; `'any'` turns the check off. */
  allowedHosts?: SammyRecordsOptions['allowedHosts'];
}

export type SammyMetricsEndpoint = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** `sammyMetricsEndpoint()`'s options, one check each. */
const ENDPOINT_OPTION_CHECKS: OptionChecks<SammyMetricsEndpointOptions> = { allowedHosts: isAllowedHosts };

export function sammyMetricsEndpoint(metrics: SammyMetrics, input: SammyMetricsEndpointOptions = {}): SammyMetricsEndpoint {
  if (typeof (metrics as Partial<SammyMetrics> | undefined)?.registry?.metrics !== 'function') {
    throw wrongType('sammyMetricsEndpoint: metrics', 'sammyPacing({ metrics: true }).metrics', metrics);
  }
  const options = checkOptions('sammyMetricsEndpoint', input, ENDPOINT_OPTION_CHECKS);
  const hostAllowed = hostCheck(options.allowedHosts);
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || pathOf(req.url ?? '/') !== METRICS_PATH) return next();
    if (!hostAllowed(req)) {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end("metrics are served only under this server's own host names\n");
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => next(err),
    );
  };
}

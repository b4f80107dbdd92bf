/**
 * Prometheus metrics (an observer of the pacing engine, beside Server-Timing and the records), through
 * `prom-client`, an optional peer dependency: loaded only when an operator enables metrics, so users
 * without it pay nothing. Labels are bounded sets (mechanism, end reason, reason codes, HTTP version):
 * never a path or a client address.
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse, Http2Session } from 'node:http2';
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import { BYTES_PER_SECOND_PER_KBPS, type PacingReport, type RtpReading } from 'sammy-pacing-protocol';
import { wrongType, type OptionChecks } from '../option-check.js';
import type { NewDeliveryRecord } from '../records/log.js';
import type { DeliveryObserver, EngineEvent } from '../engine/contract.js';
import type { PaceRequest } from '../engine/paced-response.js';

/** A prom-client `Registry`, as far as the middleware needs one (kept structural: no type dependency on prom-client). */
export interface MetricsRegistry {
  registerMetric(metric: never): void;
  getSingleMetric(name: string): unknown;
  metrics(): Promise<string>;
  readonly contentType: string;
}

export interface SammyMetricsOptions {
  /** Where the metrics are registered. Default prom-client's default registry (`register`). */
  registry?: MetricsRegistry;
}

/** `SammyMetricsOptions`, one check each (a registry's origin is checked once prom-client is loaded). */
export const METRICS_OPTION_CHECKS: OptionChecks<SammyMetricsOptions> = {
  registry: (value, name) => {
    if (typeof value !== 'object' || value === null) throw wrongType(name, 'a prom-client Registry', value);
  },
};

/** The metrics' registry, as `pacing.metrics` exposes it. */
export interface SammyMetrics {
  readonly registry: MetricsRegistry;
}

/** Paced transfers shorter than this say little about pace accuracy (the unpaced first packets dominate). */
export const MIN_RATIO_BYTES = 512 * 1024;

/** Pace buckets, kbps: a video ladder's range and beyond; exported in bytes per second (Prometheus base units). */
const PACE_BUCKETS_KBPS = [256, 512, 1024, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 1_000_000];
const RATIO_BUCKETS = [0.5, 0.8, 0.9, 0.95, 0.98, 1, 1.02, 1.05, 1.1, 1.2, 1.5, 2];

/** prom-client, required only now: a clear error when the operator asks for metrics without it. */
function loadPromClient(): typeof PromClient {
  try {
    return createRequire(import.meta.url)('prom-client') as typeof PromClient;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    throw new Error('sammyPacing: metrics need the prom-client package (an optional peer dependency): npm install prom-client', {
      cause: err,
    });
  }
}

type RequestedRtp = Pick<PaceRequest, 'rtpClamp'> & { reading: RtpReading };

/** The engine's metrics. One per middleware; its metrics are registered once in its registry. */
export class PacingMetrics implements DeliveryObserver, SammyMetrics {
  readonly registry: MetricsRegistry;
  readonly #responses: PromClient.Counter<'mechanism' | 'end_reason' | 'http_version'>;
  readonly #bytes: PromClient.Counter<'mechanism'>;
  readonly #unpaced: PromClient.Counter<'reason'>;
  readonly #ignored: PromClient.Counter<'reason'>;
  readonly #clamped: PromClient.Counter<'clamp'>;
  readonly #requested: PromClient.Histogram;
  readonly #applied: PromClient.Histogram<'mechanism'>;
  readonly #ratio: PromClient.Histogram<'mechanism'>;
  readonly #activeResponses: PromClient.Gauge;
  readonly #activeConnections: PromClient.Gauge;
  readonly #progressTimeouts: PromClient.Counter<'http_version'>;
  readonly #clientResets: PromClient.Counter;
  readonly #goaways: PromClient.Counter<'direction' | 'code'>;
  /** Paced responses not yet recorded, by record id, with their connection (a socket or an HTTP/2 session). */
  readonly #paced = new Map<number, object>();
  /** Paced responses under way per connection. */
  readonly #pacedPerConnection = new Map<object, number>();
  /** Sessions whose received GOAWAY is counted. */
  readonly #sessions = new WeakSet<Http2Session>();

  constructor(options: SammyMetricsOptions) {
    const prom = loadPromClient();
    if (options.registry !== undefined && !(options.registry instanceof prom.Registry)) {
      // A registry of another prom-client copy would take the metrics but never serve them.
      throw new TypeError('sammyPacing: metrics.registry must be a Registry of the prom-client this package loads');
    }
    const registry = (options.registry ?? prom.register) as PromClient.Registry;
    this.registry = registry as unknown as MetricsRegistry;
    const registers = [registry];
    // Several middlewares (an HTTP and an HTTPS listener) may share a registry: they count into the same metrics.
    const shared = <C extends { name: string }, M>(Metric: new (config: C) => M, config: C): M =>
      (registry.getSingleMetric(config.name) as M | undefined) ?? new Metric(config);
    const labelled = <L extends string>(labelNames: readonly L[]) => (labelNames.length > 0 ? { labelNames } : {});
    const counter = <L extends string = never>(name: string, help: string, ...labelNames: L[]) =>
      shared(prom.Counter<L>, { name, help, registers, ...labelled(labelNames) });
    const histogram = <L extends string = never>(name: string, help: string, buckets: number[], ...labelNames: L[]) =>
      shared(prom.Histogram<L>, { name, help, buckets, registers, ...labelled(labelNames) });
    const paceBuckets = PACE_BUCKETS_KBPS.map((kbps) => kbps * BYTES_PER_SECOND_PER_KBPS);
    this.#responses = counter(
      'sammy_responses_total',
      'Responses whose delivery ended, by pacing mechanism (kernel, userspace, none) and end reason (delivered, closed, stalled, shutdown, sent).',
      'mechanism',
      'end_reason',
      'http_version',
    );
    this.#bytes = counter(
      'sammy_response_bytes_total',
      'Body bytes the clients acknowledged, by pacing mechanism (bytes paced: mechanism kernel or userspace).',
      'mechanism',
    );
    this.#unpaced = counter(
      'sammy_unpaced_responses_total',
      'Responses served unpaced, by reason (rtp_absent, rtp_not_a_number, rtp_not_positive, cmcd_malformed, cmcd_too_large, cmcd_repeated, pacing_off).',
      'reason',
    );
    this.#ignored = counter(
      'sammy_rtp_ignored_total',
      'Requests whose CMCD rtp could not be used, by reason (rtp_not_a_number, rtp_not_positive, cmcd_malformed, cmcd_too_large, cmcd_repeated).',
      'reason',
    );
    this.#clamped = counter(
      'sammy_rtp_clamped_total',
      'Requests whose rtp was clamped into the pace bounds (below_floor, above_ceiling).',
      'clamp',
    );
    this.#requested = histogram(
      'sammy_requested_rtp_bytes_per_second',
      'The rtp requests asked for (CMCD rtp kbps x 125), bytes per second.',
      paceBuckets,
    );
    this.#applied = histogram(
      'sammy_applied_pace_bytes_per_second',
      'The pace applied to paced responses (their connection pace), bytes per second.',
      paceBuckets,
      'mechanism',
    );
    this.#ratio = histogram(
      'sammy_delivery_pace_ratio',
      `Achieved rate over applied pace of paced responses delivered whole, ${MIN_RATIO_BYTES} bytes or more (1 = on pace, < 1 late, > 1 fast).`,
      RATIO_BUCKETS,
      'mechanism',
    );
    this.#activeResponses = shared(prom.Gauge, {
      name: 'sammy_paced_responses_active',
      help: 'Paced responses being delivered.',
      registers,
    });
    this.#activeConnections = shared(prom.Gauge, {
      name: 'sammy_paced_connections_active',
      help: 'Connections (HTTP/1.1 sockets, HTTP/2 sessions) with a paced response being delivered.',
      registers,
    });
    this.#progressTimeouts = counter(
      'sammy_progress_timeouts_total',
      'Responses ended by the progress timeout (record endReason stalled): their connection, or their HTTP/2 stream, reset because the client took too little for progressTimeoutMs.',
      'http_version',
    );
    this.#clientResets = counter('sammy_http2_client_resets_total', 'HTTP/2 streams the client reset (RST_STREAM) before their end.');
    this.#goaways = counter(
      'sammy_http2_goaways_total',
      "HTTP/2 GOAWAY frames: received from clients, or sent by the middleware (rapid reset: code 11, ENHANCE_YOUR_CALM). Node's own idle-session GOAWAYs are not counted.",
      'direction',
      'code',
    );
  }

  /** A request arrived: what it asked for. */
  requested({ reading, rtpClamp }: RequestedRtp): void {
    if (reading.kind === 'rtp') this.#requested.observe(reading.rtpKbps * BYTES_PER_SECOND_PER_KBPS);
    else if (reading.kind === 'invalid') this.#ignored.inc({ reason: reading.code });
    if (rtpClamp) this.#clamped.inc({ clamp: rtpClamp });
  }

  readonly paced = (res: ServerResponse, report: PacingReport): void => {
    if (report.appliedPaceKbps === undefined) {
      if (report.unpacedReason) this.#unpaced.inc({ reason: report.unpacedReason });
      return;
    }
    const mechanism = report.mechanism ?? 'none';
    this.#applied.observe({ mechanism }, report.appliedPaceKbps * BYTES_PER_SECOND_PER_KBPS);
    const session = (res as unknown as Http2ServerResponse).stream?.session;
    const connection: object | undefined = session ?? res.socket ?? undefined;
    if (report.recordId === undefined || connection === undefined) return;
    if (session) this.#watchGoaway(session);
    this.#paced.set(report.recordId, connection);
    const count = this.#pacedPerConnection.get(connection) ?? 0;
    this.#pacedPerConnection.set(connection, count + 1);
    this.#activeResponses.inc();
    if (count === 0) this.#activeConnections.inc();
  };

  readonly delivered = (record: NewDeliveryRecord): void => {
    const { mechanism, appliedPaceKbps, achievedKbps } = record;
    this.#responses.inc({ mechanism, end_reason: record.endReason, http_version: record.httpVersion ?? 'unknown' });
    this.#bytes.inc({ mechanism }, record.bytes);
    if (record.endReason === 'stalled') this.#progressTimeouts.inc({ http_version: record.httpVersion ?? 'unknown' });
    if (
      record.endReason === 'delivered' &&
      appliedPaceKbps !== undefined &&
      achievedKbps !== undefined &&
      record.bytes >= MIN_RATIO_BYTES
    ) {
      this.#ratio.observe({ mechanism }, achievedKbps / appliedPaceKbps);
    }
    const connection = record.id === undefined ? undefined : this.#paced.get(record.id);
    if (connection === undefined) return;
    this.#paced.delete(record.id!);
    this.#activeResponses.dec();
    const left = (this.#pacedPerConnection.get(connection) ?? 1) - 1;
    if (left > 0) {
      this.#pacedPerConnection.set(connection, left);
    } else {
      this.#pacedPerConnection.delete(connection);
      this.#activeConnections.dec();
    }
  };

  readonly event = (event: EngineEvent): void => {
    if (event.kind === 'client_reset') this.#clientResets.inc();
    else this.#goaways.inc({ direction: 'sent', code: errorCodeLabel(event.code) });
  };

  #watchGoaway(session: Http2Session): void {
    if (this.#sessions.has(session)) return;
    this.#sessions.add(session);
    session.once('goaway', (code: number) => this.#goaways.inc({ direction: 'received', code: errorCodeLabel(code) }));
  }
}

/** HTTP/2 error codes are 0–13 (RFC 9113 §7); anything else is one label, not one per value a client sends. */
function errorCodeLabel(code: number): string {
  return Number.isInteger(code) && code >= 0 && code <= 13 ? String(code) : 'other';
}

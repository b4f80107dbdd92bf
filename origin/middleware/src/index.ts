/**
 * sammy-pacing-express: paces each response's socket at the CMCD `rtp` its request carries.
 *
 *   app.use(cors(sammyCorsOptions));  // cross-origin players (the `cors` package)
 *   app.use(sammyPacing());          // before express.static or any handler that writes the body
 */
export { sammyPacing, type SammyPacingHandler } from './middleware.js';
export { DEFAULT_MIN_READ_KBPS, DEFAULT_PROGRESS_TIMEOUT_MS, type SammyPacingOptions } from './options.js';
export { DeliveryRecordLog, DEFAULT_RECORD_CAPACITY, type RecordListener } from './records/log.js';
export {
  sammyRecords,
  isLoopbackHost,
  DEFAULT_MAX_RECORD_SUBSCRIBERS,
  DEFAULT_MAX_RECORD_SUBSCRIBERS_PER_CLIENT,
  DEFAULT_MAX_QUEUED_BYTES,
  DEFAULT_STALLED_TIMEOUT_MS,
  type SammyRecordsOptions,
  type SammyRecordsHandler,
  type RecordSubscriberState,
} from './records/handler.js';
export { releaseHttp2Sockets } from './http2/sockets.js';
export { sammyCorsOptions, type SammyCorsOptions } from './cors-options.js';
export { isPacingMode, PACING_MODES, type PacingMode } from './engine/mechanism.js';
export { defaultLogger, silentLogger, type SammyLogger } from './logger.js';
export type { DeliveryRecord, DeliveryEndReason, PacingMechanism, PacingReport, RecordsSkipped } from 'sammy-pacing-protocol';
export { type SammyMetrics, type SammyMetricsOptions, type MetricsRegistry } from './metrics/metrics.js';
export { sammyMetricsEndpoint, METRICS_PATH, type SammyMetricsEndpoint, type SammyMetricsEndpointOptions } from './metrics/handler.js';

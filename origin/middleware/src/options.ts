/** `sammyPacing()`'s options, checked once when the middleware is made (option-check.ts). */
import {
  CONGESTION_CONTROLS,
  DEFAULT_MAX_PACE_KBPS,
  DEFAULT_MIN_PACE_KBPS,
  isCongestionControl,
  type CongestionControl,
} from 'sammy-pacing-protocol';
import { DeliveryRecordLog } from './records/log.js';
import type { EngineSettings } from './engine/contract.js';
import { defaultLogger, type SammyLogger } from './logger.js';
import { METRICS_OPTION_CHECKS, type SammyMetricsOptions } from './metrics/metrics.js';
import { PACING_MODES, resolvePacingMechanism, type PacingMode } from './engine/mechanism.js';
import { checkOptions, wrongType, isBoolean, isNumber, oneOf, type OptionCheck, type OptionChecks } from './option-check.js';
import { DEFAULT_BURST_MS } from './body/userspace-pacer.js';

export interface SammyPacingOptions {
  /** How to pace: `auto` (kernel where possible, else userspace), `kernel`, `userspace`, `none`. Default `auto`. */
  mechanism?: PacingMode;
  /** Lowest pace applied, kbps; a lower rtp is raised to it. Default DEFAULT_MIN_PACE_KBPS (1024). */
  minPaceKbps?: number;
  /** Highest pace applied, kbps; a higher rtp is lowered to it. Default DEFAULT_MAX_PACE_KBPS (1 000 000). */
  maxPaceKbps?: number;
  /** Congestion control set on each connection (Linux). Default: leave the system's. */
  congestionControl?: CongestionControl;
  /** Honour the client's `Sammy-Congestion-Control` request header (experiments). Default false. */
  allowClientCongestionControl?: boolean;
  /**
   * Where delivery records go: a log to share, or the capacity of a new one. Default a new log of 1000.
   * Nothing publishes them unless you mount `sammyRecords(handler.records)`.
   */
  records?: DeliveryRecordLog | number;
  /** Largest userspace burst, ms of data at the pace rate. Default 20. */
  userspaceBurstMs?: number;
  /**
   * A connection whose client acknowledges no byte for this long, while bytes wait for it, is reset
   * (its records say `endReason: 'stalled'`), freeing its socket buffers and fds. Default 30 000 ms
   * (DEFAULT_PROGRESS_TIMEOUT_MS): longer than TCP's own retransmission back-off over a short outage
   * and than players' segment timeouts (Shaka's default is 30 s), short enough that a client that
   * stops reading holds a few MB of kernel memory for half a minute, not for ever. Not an idle
   * timeout: a connection with nothing outstanding never trips it.
   */
  progressTimeoutMs?: number;
  /**
   * The slowest a client may read while bytes wait for it, kbps: one that acknowledges less than this
   * in a `progressTimeoutMs` window is cut as `stalled` (socket/read-progress.ts). Default 128
   * (DEFAULT_MIN_READ_KBPS), an eighth of the pace floor. 0 turns the rate off (only a client that
   * acknowledges nothing for the window is cut).
   */
  minReadKbps?: number;
  /** Default: console, debug lines under NODE_DEBUG=sammy. */
  logger?: SammyLogger;
  /**
   * Prometheus metrics through `prom-client` (an optional peer dependency: install it to use this).
   * `true` registers them in prom-client's default registry; `{ registry }` in yours. Default off.
   */
  metrics?: boolean | SammyMetricsOptions;
}

/** Default progress timeout (SammyPacingOptions.progressTimeoutMs), ms. */
export const DEFAULT_PROGRESS_TIMEOUT_MS = 30_000;

/**
 * Default minReadKbps. An eighth of the pace floor (1024 kbps): slack for a real slow link — a viewer
 * on EDGE (~200 kbps) or a mobile link in a fade, averaged over the 30 s window — while any such
 * client still cannot play the lowest rung of a usual ladder (200–300 kbps) at half speed. A client
 * reading 6.5 kbps (the 16 KB every 20 s) is cut after 30 s, not held for the hour a 3 MB
 * segment would take; one reading at the floor acknowledges 8× the minimum and is never cut.
 */
export const DEFAULT_MIN_READ_KBPS = 128;

export interface ResolvedOptions {
  minPaceKbps: number;
  maxPaceKbps: number;
  records: DeliveryRecordLog;
  /** Metrics' options when enabled. */
  metrics: SammyMetricsOptions | undefined;
  engine: EngineSettings;
}

const isLogger: OptionCheck<SammyLogger> = (value, name) => {
  const logger = value as Partial<Record<keyof SammyLogger, unknown>> | null;
  if (
    typeof logger !== 'object' ||
    logger === null ||
    ['info', 'warn', 'debug'].some((m) => typeof logger[m as keyof SammyLogger] !== 'function')
  ) {
    throw wrongType(name, 'an object with info, warn and debug functions', value);
  }
};

/** `sammyPacing()`'s options, one check each: the known options, and what each must be. */
const PACING_OPTION_CHECKS: OptionChecks<SammyPacingOptions> = {
  mechanism: oneOf(PACING_MODES),
  minPaceKbps: isNumber,
  maxPaceKbps: isNumber,
  congestionControl: (value, name) => {
    if (typeof value !== 'string') throw wrongType(name, `a string, one of ${CONGESTION_CONTROLS.join(', ')}`, value);
    if (!isCongestionControl(value))
      throw new RangeError(`${name}: unknown congestion control ${JSON.stringify(value)} (known: ${CONGESTION_CONTROLS.join(', ')})`);
  },
  allowClientCongestionControl: isBoolean,
  records: (value, name) => {
    if (!(value instanceof DeliveryRecordLog) && typeof value !== 'number') {
      throw wrongType(name, 'a DeliveryRecordLog or a capacity (a number)', value);
    }
  },
  userspaceBurstMs: isNumber,
  progressTimeoutMs: isNumber,
  minReadKbps: isNumber,
  logger: isLogger,
  metrics: (value, name) => {
    if (typeof value === 'boolean') return;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw wrongType(name, 'true, false or { registry }', value);
    checkOptions(name, value, METRICS_OPTION_CHECKS);
  },
};

/** Fills in the defaults; throws on an unknown key, a value of the wrong type or that cannot work, and when `kernel` is demanded but unavailable. */
export function resolveOptions(input: SammyPacingOptions): ResolvedOptions {
  const options = checkOptions('sammyPacing', input, PACING_OPTION_CHECKS);
  const log = options.logger ?? defaultLogger;
  const minPaceKbps = options.minPaceKbps ?? DEFAULT_MIN_PACE_KBPS;
  const maxPaceKbps = options.maxPaceKbps ?? DEFAULT_MAX_PACE_KBPS;
  if (!Number.isFinite(minPaceKbps) || !Number.isFinite(maxPaceKbps) || minPaceKbps <= 0 || maxPaceKbps < minPaceKbps) {
    throw new RangeError(`sammyPacing: pace bounds must satisfy 0 < minPaceKbps <= maxPaceKbps, got [${minPaceKbps}, ${maxPaceKbps}]`);
  }
  const progressTimeoutMs = options.progressTimeoutMs ?? DEFAULT_PROGRESS_TIMEOUT_MS;
  if (!Number.isFinite(progressTimeoutMs) || progressTimeoutMs <= 0) {
    throw new RangeError(`sammyPacing: progressTimeoutMs must be a positive number of ms, got ${progressTimeoutMs}`);
  }
  const minReadKbps = options.minReadKbps ?? DEFAULT_MIN_READ_KBPS;
  if (!Number.isFinite(minReadKbps) || minReadKbps < 0)
    throw new RangeError(`sammyPacing: minReadKbps must be a non-negative number of kbps, got ${minReadKbps}`);
  const userspaceBurstMs = options.userspaceBurstMs ?? DEFAULT_BURST_MS;
  if (!Number.isFinite(userspaceBurstMs) || userspaceBurstMs <= 0)
    throw new RangeError(`sammyPacing: userspaceBurstMs must be a positive number of ms, got ${userspaceBurstMs}`);
  const records = options.records instanceof DeliveryRecordLog ? options.records : new DeliveryRecordLog(options.records);
  const congestionControl = options.congestionControl ?? undefined;
  const resolved = resolvePacingMechanism(options.mechanism ?? 'auto');
  log.info(`sammy: pacing with ${resolved.description}; pace clamped to [${minPaceKbps}, ${maxPaceKbps}] kbps`);
  const metrics = options.metrics === true ? {} : options.metrics || undefined;
  return {
    minPaceKbps,
    maxPaceKbps,
    records,
    metrics,
    engine: {
      mechanism: resolved.mechanism,
      userspaceBurstMs,
      progressTimeoutMs,
      minReadKbps,
      congestionControl,
      allowClientCongestionControl: options.allowClientCongestionControl ?? false,
      log,
    },
  };
}

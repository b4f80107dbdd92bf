/** `sammyPacing()`'s options, checked once when the middleware is made. */
import {
  DEFAULT_MAX_PACE_KBPS,
  DEFAULT_MIN_PACE_KBPS,
  isCongestionControl,
  type CongestionControl,
} from 'sammy-pacing-protocol';
import { DeliveryRecordLog } from './records/log.js';
import type { EngineSettings } from './engine/contract.js';
import { defaultLogger, type SammyLogger } from './logger.js';
import type { SammyMetricsOptions } from './metrics/metrics.js';
import { isPacingMode, PACING_MODES, resolvePacingMechanism, type PacingMode } from './engine/mechanism.js';
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
   * in a `progressTimeoutMs` window is cut as `stalled` (read-progress.ts). Default 128
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

const OPTION_KEYS: ReadonlySet<string> = new Set<keyof SammyPacingOptions>([
  'mechanism',
  'minPaceKbps',
  'maxPaceKbps',
  'congestionControl',
  'allowClientCongestionControl',
  'records',
  'userspaceBurstMs',
  'progressTimeoutMs',
  'minReadKbps',
  'logger',
  'metrics',
]);

/** Fills in the defaults; throws on an unknown key, a value that cannot work, and when `kernel` is demanded but unavailable. */
export function resolveOptions(options: SammyPacingOptions): ResolvedOptions {
  // A misspelt option would otherwise change nothing and say nothing.
  const unknown = Object.keys(options).filter((key) => !OPTION_KEYS.has(key));
  if (unknown.length > 0) throw new TypeError(`sammyPacing: unknown option ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: ${[...OPTION_KEYS].join(', ')})`);
  const log = options.logger ?? defaultLogger;
  const minPaceKbps = options.minPaceKbps ?? DEFAULT_MIN_PACE_KBPS;
  const maxPaceKbps = options.maxPaceKbps ?? DEFAULT_MAX_PACE_KBPS;
  if (!Number.isFinite(minPaceKbps) || !Number.isFinite(maxPaceKbps) || minPaceKbps <= 0 || maxPaceKbps < minPaceKbps) {
    throw new RangeError(`pace bounds must satisfy 0 < minPaceKbps <= maxPaceKbps, got [${minPaceKbps}, ${maxPaceKbps}]`);
  }
  const progressTimeoutMs = options.progressTimeoutMs ?? DEFAULT_PROGRESS_TIMEOUT_MS;
  if (!Number.isFinite(progressTimeoutMs) || progressTimeoutMs <= 0) {
    throw new RangeError(`progressTimeoutMs must be a positive number of ms, got ${progressTimeoutMs}`);
  }
  const minReadKbps = options.minReadKbps ?? DEFAULT_MIN_READ_KBPS;
  if (!Number.isFinite(minReadKbps) || minReadKbps < 0) throw new RangeError(`minReadKbps must be a non-negative number of kbps, got ${minReadKbps}`);
  const records = options.records instanceof DeliveryRecordLog ? options.records : new DeliveryRecordLog(options.records);
  const congestionControl = options.congestionControl;
  if (congestionControl !== undefined && !isCongestionControl(congestionControl)) {
    throw new RangeError(`unknown congestion control ${JSON.stringify(congestionControl)}`);
  }
  const mechanism = options.mechanism ?? 'auto';
  if (!isPacingMode(mechanism)) throw new RangeError(`mechanism must be one of ${PACING_MODES.join(', ')}, got ${JSON.stringify(mechanism)}`);
  const resolved = resolvePacingMechanism(mechanism);
  log.info(`sammy: pacing with ${resolved.description}; pace clamped to [${minPaceKbps}, ${maxPaceKbps}] kbps`);
  const metrics = options.metrics === true ? {} : options.metrics || undefined;
  if (metrics !== undefined && (typeof metrics !== 'object' || metrics === null)) throw new TypeError(`metrics must be true, false or { registry }, got ${JSON.stringify(options.metrics)}`);
  return {
    minPaceKbps,
    maxPaceKbps,
    records,
    metrics,
    engine: {
      mechanism: resolved.mechanism,
      userspaceBurstMs: options.userspaceBurstMs ?? DEFAULT_BURST_MS,
      progressTimeoutMs,
      minReadKbps,
      congestionControl,
      allowClientCongestionControl: options.allowClientCongestionControl ?? false,
      log,
    },
  };
}

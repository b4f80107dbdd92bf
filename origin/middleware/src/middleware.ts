/**
 * `sammyPacing()`: Express middleware that paces each response at the CMCD `rtp` the request carries.
 * Put it before `express.static` (or any handler that writes the body).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import {
  clampPaceKbps,
  CONGESTION_CONTROL_HEADER,
  DEFAULT_MAX_PACE_KBPS,
  DEFAULT_MIN_PACE_KBPS,
  formatServerTiming,
  isCongestionControl,
  kbpsToBytesPerSecond,
  RECORD_EVENTS_PATH,
  RECORDS_PATH,
  type CongestionControl,
  type PacingMechanism,
  type PacingReport,
} from 'sammy-pacing-protocol';
import { ConnectionSocket } from './connection.js';
import { DeliveryRecordLog } from './delivery-records.js';
import { defaultLogger, type SammyLogger } from './logger.js';
import { resolvePacingMechanism, type PacingMode } from './pacing-mechanism.js';
import { serveRecordEvents, serveRecordsJson } from './records-endpoints.js';
import { trackDelivery } from './delivery-tracker.js';
import { meterResponse } from './response-meter.js';
import { readRequestedRtp, stripCmcdQuery } from './rtp.js';
import { SocketOptionError } from './socket-options.js';
import { tcpInfoReport } from './tcp-report.js';
import { DEFAULT_BURST_MS, paceResponseInUserspace, type UserspacePacer } from './userspace-pacer.js';

export interface SammyPacingOptions {
  /** How to pace: `auto` (kernel where possible, else userspace), `kernel`, `userspace`, `off`. Default `auto`. */
  mechanism?: PacingMode;
  /** Lowest pace applied, kbps; a lower rtp is raised to it. Default DEFAULT_MIN_PACE_KBPS (1024). */
  minPaceKbps?: number;
  /** Highest pace applied, kbps; a higher rtp is lowered to it. Default DEFAULT_MAX_PACE_KBPS (1 000 000). */
  maxPaceKbps?: number;
  /** Congestion control set on each connection (Linux). Default: leave the system's. */
  congestionControl?: CongestionControl;
  /** Honour the client's `Sammy-Congestion-Control` request header (experiments). Default false. */
  allowClientCongestionControl?: boolean;
  /** Where delivery records go: a log to share, or the capacity of a new one. Default a new log of 1000. */
  records?: DeliveryRecordLog | number;
  /** Answer GET RECORDS_PATH (JSON) and RECORD_EVENTS_PATH (SSE) here. Default true. */
  serveRecords?: boolean;
  /** Largest userspace burst, ms of data at the pace rate. Default 20. */
  userspaceBurstMs?: number;
  /** Default: console, debug lines under NODE_DEBUG=sammy. */
  logger?: SammyLogger;
}

export interface SammyPacingHandler extends RequestHandler {
  /** Mechanism paced responses use (a response whose socket cannot be paced in the kernel falls back to userspace). */
  readonly mechanism: Extract<PacingMechanism, 'kernel' | 'userspace' | 'none'>;
  readonly records: DeliveryRecordLog;
  /** Responses not yet recorded (in flight, or waiting for their last byte to be acknowledged). */
  readonly activeResponses: number;
  /** Ends record streams and stops waiting on deliveries; call when the server closes. */
  close(): void;
}

/** The congestion-control request header as Node keys it (lower case). */
const CONGESTION_CONTROL_HEADER_KEY = CONGESTION_CONTROL_HEADER.toLowerCase();

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

function appendHeader(res: ServerResponse, name: string, value: string): void {
  const existing = res.getHeader(name);
  if (existing === undefined) res.setHeader(name, value);
  else if (!String(existing).split(',').some((v) => v.trim().toLowerCase() === value.toLowerCase())) {
    res.setHeader(name, `${String(existing)}, ${value}`);
  }
}

function checkPaceBounds(min: number, max: number): void {
  if (!Number.isFinite(min) || !Number.isFinite(max) || min <= 0 || max < min) {
    throw new RangeError(`pace bounds must satisfy 0 < minPaceKbps <= maxPaceKbps, got [${min}, ${max}]`);
  }
}

export function sammyPacing(options: SammyPacingOptions = {}): SammyPacingHandler {
  const log = options.logger ?? defaultLogger;
  const minKbps = options.minPaceKbps ?? DEFAULT_MIN_PACE_KBPS;
  const maxKbps = options.maxPaceKbps ?? DEFAULT_MAX_PACE_KBPS;
  checkPaceBounds(minKbps, maxKbps);
  const burstMs = options.userspaceBurstMs ?? DEFAULT_BURST_MS;
  const records = options.records instanceof DeliveryRecordLog ? options.records : new DeliveryRecordLog(options.records);
  const serveRecords = options.serveRecords ?? true;
  const configuredCc = options.congestionControl;
  if (configuredCc !== undefined && !isCongestionControl(configuredCc)) {
    throw new RangeError(`unknown congestion control ${JSON.stringify(configuredCc)}`);
  }
  const resolved = resolvePacingMechanism(options.mechanism ?? 'auto');
  log.info(`sammy: pacing with ${resolved.description}; pace clamped to [${minKbps}, ${maxKbps}] kbps`);

  const closers = new Set<() => void>();
  let active = 0;

  /** Applies the connection's congestion control before the response; failures only log. */
  const applyCongestionControl = (conn: ConnectionSocket, req: IncomingMessage) => {
    let wanted: string | undefined;
    if (!conn.state.configuredCcApplied) {
      conn.state.configuredCcApplied = true;
      wanted = configuredCc;
    }
    if (options.allowClientCongestionControl) {
      const asked = req.headers[CONGESTION_CONTROL_HEADER_KEY];
      if (isCongestionControl(asked)) wanted = asked;
      else if (asked !== undefined) log.debug(`sammy: ignored ${CONGESTION_CONTROL_HEADER}: ${JSON.stringify(asked)}`);
    }
    try {
      if (wanted !== undefined && wanted !== conn.congestionControl()) conn.setCongestionControl(wanted);
    } catch (err) {
      log.debug(`sammy: congestion control ${wanted}: ${(err as Error).message}`);
    }
  };

  const handler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void => {
    // The URL as it reached this middleware: records keep this path (a router mounted later,
    // e.g. express.static under /media, rewrites req.url).
    const url = req.url ?? '/';
    const path = pathOf(url);
    if (serveRecords && (req.method === 'GET' || req.method === 'HEAD')) {
      if (path === RECORDS_PATH) return serveRecordsJson(records, res);
      if (path === RECORD_EVENTS_PATH) {
        const end = serveRecordEvents(records, req, res);
        closers.add(end);
        res.once('close', () => closers.delete(end));
        return;
      }
    }

    const reading = readRequestedRtp(req);
    if (reading.kind === 'invalid') log.debug(`sammy: ignored CMCD (${reading.source}) on ${path}: ${reading.reason}`);
    // The CMCD parameter changes on every request: it must never reach a file path or a cache key.
    req.url = stripCmcdQuery(url);

    const conn = new ConnectionSocket(req.socket);
    const requestedRtpKbps = reading.kind === 'rtp' ? reading.rtpKbps : undefined;
    const paceKbps = requestedRtpKbps !== undefined && resolved.mechanism !== 'none' ? clampPaceKbps(requestedRtpKbps, minKbps, maxKbps) : undefined;
    const paceBytesPerSecond = paceKbps === undefined ? undefined : kbpsToBytesPerSecond(paceKbps);
    let mechanism: PacingMechanism = paceKbps === undefined ? 'none' : resolved.mechanism;

    applyCongestionControl(conn, req);

    // The kernel pace (or its reset) goes on the socket before the first body byte. With HTTP/1.1
    // pipelining an earlier response may still be sending on this socket: then wait for the first write.
    const applyKernel = (): boolean => {
      try {
        return conn.setKernelPace(mechanism === 'kernel' && paceBytesPerSecond !== undefined ? paceBytesPerSecond : null);
      } catch (err) {
        if (!(err instanceof SocketOptionError)) throw err;
        log.debug(`sammy: kernel pacing failed on ${path}: ${err.message}`);
        return false;
      }
    };
    const deferKernel = conn.state.inFlight > 0 && resolved.mechanism === 'kernel';
    if (!deferKernel && !applyKernel() && mechanism === 'kernel') mechanism = 'userspace';

    let tcp: PacingReport | undefined;
    try {
      tcp = tcpInfoReport(conn.tcpInfo());
    } catch (err) {
      log.debug(`sammy: TCP_INFO: ${(err as Error).message}`);
    }
    const congestionControl = safe(() => conn.congestionControl());
    const report: PacingReport = { requestedRtpKbps, appliedPaceKbps: paceKbps, mechanism, congestionControl, ...tcp };
    appendHeader(res, 'Server-Timing', formatServerTiming(report));
    if (!res.hasHeader('Timing-Allow-Origin')) res.setHeader('Timing-Allow-Origin', '*');
    appendHeader(res, 'Access-Control-Expose-Headers', 'Server-Timing');

    const meter = meterResponse(res, deferKernel ? () => void applyKernel() : undefined);
    let pacer: UserspacePacer | undefined;
    if (mechanism === 'userspace' && paceBytesPerSecond !== undefined) pacer = paceResponseInUserspace(res, paceBytesPerSecond, burstMs);

    active++;
    conn.state.inFlight++;
    const stopTracking = trackDelivery({
      res,
      conn,
      meter,
      retransmitsBefore: tcp?.retransmits,
      paceBytesPerSecond,
      onResponseDone: () => {
        conn.state.inFlight--;
        pacer?.stop();
      },
      onRecord: (fields) => {
        closers.delete(stopTracking);
        active--;
        records.add({ ...fields, path, requestedRtpKbps, appliedPaceKbps: paceKbps, mechanism, congestionControl });
      },
    });
    closers.add(stopTracking);
    next();
  };

  return Object.defineProperties(handler as unknown as SammyPacingHandler, {
    mechanism: { value: resolved.mechanism, enumerable: true },
    records: { value: records, enumerable: true },
    activeResponses: { get: () => active, enumerable: true },
    close: {
      value: () => {
        for (const close of [...closers]) close();
        closers.clear();
      },
    },
  });
}

function safe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

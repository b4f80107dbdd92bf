/**
 * `sammyPacing()`: Express middleware that paces each response at the CMCD `rtp` the request carries.
 * Put it before `express.static` (or any handler that writes the body).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse, Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { RequestHandler } from 'express';
import {
  clampPaceKbps,
  CONGESTION_CONTROL_HEADER,
  decideConnectionPace,
  DEFAULT_MAX_PACE_KBPS,
  DEFAULT_MIN_PACE_KBPS,
  formatServerTiming,
  isCongestionControl,
  type CongestionControl,
  type PacingMechanism,
  type PacingReport,
  type CmcdObjectType,
} from 'sammy-pacing-protocol';
import { ConnectionSocket } from './connection.js';
import { DeliveryRecordLog } from './delivery-records.js';
import { defaultLogger, type SammyLogger } from './logger.js';
import { resolvePacingMechanism, type PacingMode } from './pacing-mechanism.js';
import { DeliveryConnection } from './delivery-connection.js';
import { ResponseDelivery } from './delivery-tracker.js';
import { meterResponse } from './response-meter.js';
import { pathOf, readCmcdRequest, withoutCmcd } from './rtp.js';
import { SharedConnection, StreamDelivery } from './shared-connection.js';
import { SocketOptionError } from './socket-options.js';
import type { TcpInfo } from './tcp-info.js';
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
  /** Default: console, debug lines under NODE_DEBUG=sammy. */
  logger?: SammyLogger;
}

/** Default progress timeout (SammyPacingOptions.progressTimeoutMs), ms. */
export const DEFAULT_PROGRESS_TIMEOUT_MS = 30_000;

export interface SammyPacingHandler extends RequestHandler {
  /** The same middleware on node:http2's compatibility API (HTTP/2 requests share their connection's pace). */
  (req: Http2ServerRequest, res: Http2ServerResponse, next: (err?: unknown) => void): void;
  /** Mechanism paced responses use (a response whose socket cannot be paced in the kernel falls back to userspace). */
  readonly mechanism: Extract<PacingMechanism, 'kernel' | 'userspace' | 'none'>;
  readonly records: DeliveryRecordLog;
  /** Responses not yet recorded (in flight, or waiting for their last byte to be acknowledged). */
  readonly activeResponses: number;
  /** Stops waiting on deliveries; call when the server closes. */
  close(): void;
}

/** Linux paces a connection only from its 10th data segment on (tcp_update_skb_after_send: `data_segs_out >= 10`). */
const KERNEL_UNPACED_SEGMENTS = 10;
/**
 * Paced in userspace until the kernel takes over only when its unpaced segments would add up to more
 * than one TSO packet (the step the kernel paces in anyway). Measured (bench first-response, 3 MB at
 * 4–20 Mbps on a new connection): loopback's 64 KB MSS 9.7% → 0.7% median error; at a 1448-byte MSS
 * (14 KB unpaced) the userspace steps cost more than they save (0.6% → 2.7% on loopback), so not there.
 */
const MIN_UNPACED_LEAD_BYTES = 64 * 1024;

/** Bytes the kernel would still send unpaced on this connection. */
function unpacedLead(info: TcpInfo): number {
  return Math.max(0, KERNEL_UNPACED_SEGMENTS - (info.dataSegsOut ?? KERNEL_UNPACED_SEGMENTS)) * info.sndMss;
}

/** The congestion-control request header as Node keys it (lower case). */
const CONGESTION_CONTROL_HEADER_KEY = CONGESTION_CONTROL_HEADER.toLowerCase();

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
  const progressTimeoutMs = options.progressTimeoutMs ?? DEFAULT_PROGRESS_TIMEOUT_MS;
  if (!Number.isFinite(progressTimeoutMs) || progressTimeoutMs <= 0) {
    throw new RangeError(`progressTimeoutMs must be a positive number of ms, got ${progressTimeoutMs}`);
  }
  const records = options.records instanceof DeliveryRecordLog ? options.records : new DeliveryRecordLog(options.records);
  const configuredCc = options.congestionControl;
  if (configuredCc !== undefined && !isCongestionControl(configuredCc)) {
    throw new RangeError(`unknown congestion control ${JSON.stringify(configuredCc)}`);
  }
  const resolved = resolvePacingMechanism(options.mechanism ?? 'auto');
  log.info(`sammy: pacing with ${resolved.description}; pace clamped to [${minKbps}, ${maxKbps}] kbps`);

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

  /** Sets or removes (undefined) the socket's kernel pace; false when it cannot. */
  const applyKernelPace = (conn: ConnectionSocket, paceKbps: number | undefined, path: string): boolean => {
    try {
      return conn.setKernelPace(paceKbps);
    } catch (err) {
      if (!(err instanceof SocketOptionError)) throw err;
      log.debug(`sammy: kernel pacing failed on ${path}: ${err.message}`);
      return false;
    }
  };

  /**
   * Reads the connection's TCP_INFO and congestion control after its pace is set and reports them, with
   * `report`, in the response's Server-Timing: what really paces this body.
   */
  const reportPacing = (res: ServerResponse, conn: ConnectionSocket, report: PacingReport) => {
    let info: TcpInfo | undefined;
    try {
      info = conn.tcpInfo();
    } catch (err) {
      log.debug(`sammy: TCP_INFO: ${(err as Error).message}`);
    }
    const tcp = tcpInfoReport(info);
    const congestionControl = safe(() => conn.congestionControl());
    appendHeader(res, 'Server-Timing', formatServerTiming({ ...report, congestionControl, ...tcp }));
    if (!res.hasHeader('Timing-Allow-Origin')) res.setHeader('Timing-Allow-Origin', '*');
    appendHeader(res, 'Access-Control-Expose-Headers', 'Server-Timing');
    return { info, tcp, congestionControl };
  };

  // One per socket, per middleware instance; `busy` holds those with deliveries, for close().
  const connections = new WeakMap<Socket, DeliveryConnection>();
  let connectionCount = 0;
  const connectionIds = new WeakMap<object, number>();
  /** The record's connection id: one per socket or HTTP/2 session, in order of first request. */
  const connectionId = (key: object): number => {
    let id = connectionIds.get(key);
    if (id === undefined) connectionIds.set(key, (id = ++connectionCount));
    return id;
  };
  const busy = new Set<DeliveryConnection>();
  const limits = { progressTimeoutMs };
  const deliveryConnection = (socket: Socket): DeliveryConnection => {
    let c = connections.get(socket);
    if (!c) {
      c = new DeliveryConnection(socket, limits, log, (idle) => busy.delete(idle));
      connections.set(socket, c);
    }
    busy.add(c);
    return c;
  };

  // HTTP/2: one tracker per session, whose socket pace all its streams share.
  const sessions = new WeakMap<Http2Session, SharedConnection>();
  const busySessions = new Set<SharedConnection>();

  /** An HTTP/2 request: the connection's pace follows the shared-connection rules (decideConnectionPace). */
  const handleShared = (
    req: IncomingMessage,
    res: ServerResponse,
    next: (err?: unknown) => void,
    session: Http2Session,
    shared: { path: string; recordId: number; requestedRtpKbps?: number; paceKbps?: number; objectType?: CmcdObjectType },
  ): void => {
    // Node closes a server stream with RST_STREAM(NO_ERROR) once its response counts as finished if
    // nothing read the request, even while the final DATA frame (END_STREAM) still waits for the
    // client's window: a strict client then discards a whole response. Reading the request, empty
    // when its HEADERS ended the stream, keeps Node on the normal close.
    const stream = (req as unknown as Http2ServerRequest).stream;
    if (stream.endAfterHeaders) stream.resume();
    let connection = sessions.get(session);
    if (!connection) {
      connection = new SharedConnection(session, session.socket as Socket, limits, log, (idle) => busySessions.delete(idle));
      sessions.set(session, connection);
    }
    busySessions.add(connection);
    const conn = connection.conn;
    const current = conn.state.kernelPaceKbps;
    const concurrent = connection.streamsSending;
    const decision = decideConnectionPace({
      shared: true,
      requestPaceKbps: shared.paceKbps,
      connectionPaceKbps: connection.paceKbps,
      busy: concurrent > 0,
      objectType: shared.objectType,
    });
    let mechanism: PacingMechanism = decision.paceKbps === undefined ? 'none' : resolved.mechanism;
    applyCongestionControl(conn, req);
    if (mechanism === 'kernel' || (current !== undefined && decision.paceKbps === undefined)) {
      if (applyKernelPace(conn, mechanism === 'kernel' ? decision.paceKbps : undefined, shared.path)) connection.paceKbps = decision.paceKbps;
      else if (mechanism === 'kernel') mechanism = 'userspace';
    }
    if (conn.state.kernelPaceKbps !== current) connection.paceChanged();
    if (mechanism !== 'kernel') connection.paceKbps = decision.paceKbps;
    const { tcp, congestionControl } = reportPacing(res, conn, {
      requestedRtpKbps: shared.requestedRtpKbps,
      appliedPaceKbps: decision.paceKbps,
      mechanism,
      recordId: shared.recordId,
      sharedConnection: { reason: decision.reason, concurrent },
    });
    active++;
    const delivery = new StreamDelivery(res, (fields) => {
      active--;
      records.add({
        ...fields,
        id: shared.recordId,
        path: shared.path,
        requestedRtpKbps: shared.requestedRtpKbps,
        appliedPaceKbps: decision.paceKbps,
        mechanism,
        congestionControl,
        httpVersion: '2',
        connectionId: connectionId(session),
        objectType: shared.objectType,
        paceReason: decision.reason,
      });
    });
    delivery.retransmitsBefore = tcp?.retransmits;
    // Userspace pacing (forced, or the kernel refused) paces each stream at the connection's pace.
    // (A held body stops, and drops what it holds, when its response closes: held-response.ts.)
    const pacer = mechanism === 'userspace' && decision.paceKbps !== undefined ? paceResponseInUserspace(res, decision.paceKbps, burstMs) : undefined;
    delivery.held = pacer;
    connection.add(delivery);
    // Every other body waits at the send gate while the connection is kernel-paced, now or later.
    if (!pacer && resolved.mechanism === 'kernel') connection.hold(delivery);
    next();
  };

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
    if (reading.kind === 'invalid') log.debug(`sammy: ignored CMCD (${reading.source}) on ${path}: ${reading.reason}`);
    // The CMCD parameter changes on every request: it must never reach a file path or a cache key.
    req.url = withoutCmcd(url);

    const requestedRtpKbps = reading.kind === 'rtp' ? reading.rtpKbps : undefined;
    const paceKbps = requestedRtpKbps !== undefined && resolved.mechanism !== 'none' ? clampPaceKbps(requestedRtpKbps, minKbps, maxKbps) : undefined;
    const session = (req as unknown as Http2ServerRequest).stream?.session;
    if (req.httpVersionMajor === 2 && session) {
      handleShared(req, res, next, session, { path, recordId, requestedRtpKbps, paceKbps, objectType: cmcd.objectType });
      return;
    }
    // Until admitted, what the response plans; admission may fall back from kernel to userspace.
    let mechanism: PacingMechanism = paceKbps === undefined ? 'none' : resolved.mechanism;
    let congestionControl: string | undefined;
    let pacer: UserspacePacer | undefined;
    const connection = deliveryConnection(req.socket);

    // Runs when the response's turn has come on its connection (at once, unless an earlier response
    // is still being written or a new pace must wait for its bytes to leave): decides the pace before
    // the head is written, so Server-Timing says what really paces this body.
    const admit = (delivery: ResponseDelivery): void => {
      const conn = connection.conn;
      applyCongestionControl(conn, req);
      if (!applyKernelPace(conn, mechanism === 'kernel' ? paceKbps : undefined, path) && mechanism === 'kernel') {
        mechanism = 'userspace';
        applyKernelPace(conn, undefined, path);
      }
      const reported = reportPacing(res, conn, { requestedRtpKbps, appliedPaceKbps: paceKbps, mechanism, recordId });
      const { info, tcp } = reported;
      congestionControl = reported.congestionControl;

      delivery.retransmitsBefore = tcp?.retransmits;
      // The meter goes under the pacer: it counts what reaches the socket.
      delivery.meter = meterResponse(res, req.socket, delivery.wireStart!);
      if (mechanism === 'userspace' && paceKbps !== undefined) pacer = paceResponseInUserspace(res, paceKbps, burstMs);
      else if (mechanism === 'kernel' && info?.dataSegsOut !== undefined && unpacedLead(info) > MIN_UNPACED_LEAD_BYTES) {
        // A new connection with large segments (loopback: 64 KB): the kernel would send its first ones
        // unpaced, hundreds of KB at once, so space those here, one per burst, then hand over.
        pacer = paceResponseInUserspace(res, paceKbps!, burstMs, {
          burstBytes: info.sndMss,
          done: () => (safe(() => conn.tcpInfo()?.dataSegsOut) ?? KERNEL_UNPACED_SEGMENTS) >= KERNEL_UNPACED_SEGMENTS,
        });
      }
      next();
    };

    active++;
    connection.add(
      new ResponseDelivery({
        res,
        kernelPaceKbps: mechanism === 'kernel' ? paceKbps : undefined,
        admit,
        onResponseDone: () => pacer?.stop(),
        onRecord: (fields) => {
          active--;
          records.add({
            ...fields,
            id: recordId,
            path,
            requestedRtpKbps,
            appliedPaceKbps: paceKbps,
            mechanism,
            congestionControl,
            httpVersion: req.httpVersion,
            connectionId: connectionId(req.socket),
            objectType: cmcd.objectType,
          });
        },
      }),
    );
  };

  return Object.defineProperties(handler as unknown as SammyPacingHandler, {
    mechanism: { value: resolved.mechanism, enumerable: true },
    records: { value: records, enumerable: true },
    activeResponses: { get: () => active, enumerable: true },
    close: {
      value: () => {
        for (const c of [...busy]) c.shutdown();
        busy.clear();
        for (const c of [...busySessions]) c.shutdown();
        busySessions.clear();
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

/**
 * One response as the engine paces it, on either HTTP version: what its request asked for, how it is
 * paced, its write wrapper, and its delivery record, built here once from what its connection measured.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CmcdObjectType, ConnectionPaceReason, DeliveryEndReason, PacingMechanism, RtpClamp, UnpacedReason } from 'sammy-pacing-protocol';
import type { NewDeliveryRecord } from '../records/log.js';
import { ResponseWrites } from '../body/writes.js';
import type { TcpInfo } from '../socket/tcp-info.js';

/** What the middleware read from the request. */
export interface PaceRequest {
  /** The record's id, allocated now so that Server-Timing can carry it. */
  recordId: number;
  /** The path as it reached the middleware, without query. */
  path: string;
  requestedRtpKbps?: number;
  /** The request's own pace (its rtp, clamped); undefined when it asks for none or pacing is off. */
  paceKbps?: number;
  objectType?: CmcdObjectType;
  /** Why the response goes unpaced if its connection's pace is none (no usable rtp, or pacing off). */
  unpacedReason?: UnpacedReason;
  /** How its rtp was clamped into the pace bounds, if it was. */
  rtpClamp?: RtpClamp;
}

/** How the response is paced: as planned until its turn comes, then as set on its connection. */
export interface ResponsePacing {
  appliedPaceKbps: number | undefined;
  mechanism: PacingMechanism;
  congestionControl?: string;
  /** HTTP/2 only: how the shared connection's pace was decided. */
  paceReason?: ConnectionPaceReason;
  /** TCP_INFO total_retrans when the pace was set. */
  retransmitsBefore?: number;
}

/** Where the response is delivered, and what to call. */
export interface ResponseContext {
  /** Its connection, as the record names it. */
  connectionId: number;
  httpVersion: string;
  /** The engine's mechanism: a paced response plans on it until its turn comes. */
  mechanism: PacingMechanism;
  /** Lets the next handler run. */
  start(): void;
  /** Takes the record when the delivery ends. */
  record(record: NewDeliveryRecord): void;
}

export type TrackedFields = Pick<
  NewDeliveryRecord,
  | 'status'
  | 'bytes'
  | 'bytesExact'
  | 'bytesWritten'
  | 'startedAt'
  | 'finishedAt'
  | 'durationMs'
  | 'achievedKbps'
  | 'retransmits'
  | 'rttMs'
  | 'endReason'
  | 'aborted'
>;

export class PacedResponse {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly request: PaceRequest;
  readonly writes: ResponseWrites;
  readonly requestAt = performance.now();
  readonly #wallOffset = Date.now() - this.requestAt;
  readonly #context: ResponseContext;
  pacing: ResponsePacing;
  #recorded = false;

  constructor(req: IncomingMessage, res: ServerResponse, request: PaceRequest, context: ResponseContext) {
    this.req = req;
    this.res = res;
    this.request = request;
    this.#context = context;
    this.pacing = { appliedPaceKbps: request.paceKbps, mechanism: request.paceKbps === undefined ? 'none' : context.mechanism };
    this.writes = new ResponseWrites(res);
  }

  get recorded(): boolean {
    return this.#recorded;
  }

  /** Lets the next handler run: its pace is set. */
  start(): void {
    this.#context.start();
  }

  /**
   * Records the delivery, once: `bytes` of the body reached the client (exactly, or at least), the
   * last at `endAt` (performance.now(); the last acknowledgement's time when known), `info` read at the end.
   */
  end(reason: DeliveryEndReason, bytes: number, bytesExact: boolean, info: TcpInfo | undefined, endAt: number = performance.now()): void {
    if (this.#recorded) return;
    this.#recorded = true;
    const startAt = this.writes.firstByteAt ?? this.requestAt;
    const { appliedPaceKbps, mechanism, congestionControl, paceReason, retransmitsBefore } = this.pacing;
    const { recordId, path, requestedRtpKbps, objectType } = this.request;
    this.#context.record({
      ...trackedFields({
        status: this.res.statusCode,
        bytes,
        bytesExact,
        bytesWritten: this.writes.bytes,
        startAt,
        endAt: Math.max(endAt, startAt),
        wallOffset: this.#wallOffset,
        retransmitsBefore,
        info,
        reason,
      }),
      id: recordId,
      path,
      requestedRtpKbps,
      appliedPaceKbps,
      mechanism,
      congestionControl,
      httpVersion: this.#context.httpVersion,
      connectionId: this.#context.connectionId,
      objectType,
      ...(paceReason === undefined ? {} : { paceReason }),
    });
  }
}

/**
 * A record's measured fields from one delivery's facts (performance.now() times, `wallOffset` to turn
 * them into wall-clock ms).
 */
export function trackedFields(f: {
  status: number;
  bytes: number;
  bytesExact: boolean;
  bytesWritten: number;
  startAt: number;
  endAt: number;
  wallOffset: number;
  retransmitsBefore: number | undefined;
  info: TcpInfo | undefined;
  reason: DeliveryEndReason;
}): TrackedFields {
  const durationMs = Math.max(0, f.endAt - f.startAt);
  return {
    status: f.status,
    bytes: f.bytes,
    bytesExact: f.bytesExact,
    bytesWritten: f.bytesWritten,
    startedAt: Math.round(f.wallOffset + f.startAt),
    finishedAt: Math.round(f.wallOffset + f.endAt),
    durationMs,
    // bits per millisecond = kbps; none for a delivery too quick to time (0 kbps would be a false figure)
    achievedKbps: durationMs > 0 ? (f.bytes * 8) / durationMs : undefined,
    retransmits: f.info && f.retransmitsBefore !== undefined ? f.info.totalRetrans - f.retransmitsBefore : undefined,
    rttMs: f.info ? f.info.rttUs / 1000 : undefined,
    endReason: f.reason,
    aborted: f.reason !== 'delivered' && f.reason !== 'sent',
  };
}

/**
 * One response as the engine paces it, on either HTTP version: what its request asked for (its planned
 * pace), how it is paced once admitted (its applied pace, set by the connection's Admission only), its
 * write wrapper, and its delivery record, built here once from what its connection measured.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  CmcdObjectType,
  ConnectionPaceReason,
  DeliveryEndReason,
  PacingMechanism,
  RtpClamp,
  UnpacedReason,
} from 'sammy-pacing-protocol';
import type { NewDeliveryRecord } from '../records/log.js';
import type { ReleasePolicy } from '../body/held-body.js';
import { ResponseWrites } from '../body/writes.js';
import type { TcpInfo } from '../socket/tcp-info.js';

/** What the middleware read from the request. */
export interface PaceRequest {
  /** The record's id, allocated now so that Server-Timing can carry it. */
  recordId: number;
  /** The path as it reached the middleware, without query. */
  path: string;
  requestedRtpKbps?: number;
  /**
   * The pace the request plans: its rtp, clamped; undefined when it asks for none or pacing is off.
   * Its connection may apply another (HTTP/2 shares one pace): `PacedResponse.applied`.
   */
  plannedPaceKbps?: number;
  objectType?: CmcdObjectType;
  /** Why the response goes unpaced if its connection's pace is none (no usable rtp, or pacing off). */
  unpacedReason?: UnpacedReason;
  /** How its rtp was clamped into the pace bounds, if it was. */
  rtpClamp?: RtpClamp;
}

/** How the response is paced once its turn came: what its connection's Admission set. */
export interface AppliedPace {
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
  /** The mechanism its planned pace would use (the engine's; `none` without a pace): the record's until it is admitted. */
  plannedMechanism: PacingMechanism;
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
  #applied: AppliedPace | undefined;
  #hold: ReleasePolicy | undefined;
  #recorded = false;

  constructor(req: IncomingMessage, res: ServerResponse, request: PaceRequest, context: ResponseContext) {
    this.req = req;
    this.res = res;
    this.request = request;
    this.#context = context;
    this.writes = new ResponseWrites(res);
  }

  /** The pace its connection applied; undefined until admitted. */
  get applied(): AppliedPace | undefined {
    return this.#applied;
  }

  /** The kernel pace it would put on its socket as planned (undefined for none): HTTP/1.1 waits for the socket to drain before a change. */
  get plannedKernelPaceKbps(): number | undefined {
    return this.#context.plannedMechanism === 'kernel' ? this.request.plannedPaceKbps : undefined;
  }

  /** Its connection's Admission set its pace, once; `hold` is where its body waits (userspace pacer, send gate, kernel hand-off). */
  admitted(applied: AppliedPace, hold: ReleasePolicy | undefined): void {
    if (this.#applied) throw new Error('a response is admitted once');
    this.#applied = applied;
    this.#hold = hold;
  }

  get recorded(): boolean {
    return this.#recorded;
  }

  /** Lets the next handler run: its pace is set, and its body, if held, is held from its first byte. */
  start(): void {
    if (this.#hold) this.writes.hold(this.#hold);
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
    // Ended before its turn came: the record says what it planned.
    const { appliedPaceKbps, mechanism, congestionControl, paceReason, retransmitsBefore } = this.#applied ?? {
      appliedPaceKbps: this.request.plannedPaceKbps,
      mechanism: this.request.plannedPaceKbps === undefined ? 'none' : this.#context.plannedMechanism,
    };
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

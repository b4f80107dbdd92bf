/**
 * One response's delivery, from its request to the record of what reached the client. The
 * connection it belongs to (delivery-connection.ts) admits it, feeds it the acknowledged stream
 * offset (TCP_INFO bytes_acked) and ends it; this class turns that into the record's fields.
 *
 * Where the response sits in the connection's byte stream is known exactly: it is admitted only
 * once the previous response is written, so it starts at the socket's bytesWritten then (`wireStart`)
 * and ends at bytesWritten when Node has written its last byte (`prefinish`, `wireEnd`).
 */
import type { ServerResponse } from 'node:http';
import type { DeliveryEndReason } from 'sammy-pacing-protocol';
import type { NewDeliveryRecord } from './delivery-records.js';
import type { ResponseMeter } from './response-meter.js';
import type { TcpInfo } from './tcp-info.js';

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

export interface ResponseDeliveryOptions {
  res: ServerResponse;
  /**
   * Kernel pace this response puts on the socket, undefined for none. A response that changes
   * the socket's pace is admitted only once the bytes before it have left the socket.
   */
  kernelPaceKbps: number | undefined;
  /** Decides and applies the pace, writes nothing yet, then lets the handler run (`next()`). */
  admit(delivery: ResponseDelivery): void;
  /** Called once, when the delivery has ended. */
  onRecord(fields: TrackedFields): void;
  /** Called once, when Node is done with the response (finished or closed). */
  onResponseDone?(): void;
}

export class ResponseDelivery {
  readonly res: ServerResponse;
  readonly kernelPaceKbps: number | undefined;
  readonly requestAt = performance.now();
  readonly #wallOffset = Date.now() - this.requestAt;
  readonly #options: ResponseDeliveryOptions;
  /** Set by `admit`: counts what the handler writes. */
  meter: ResponseMeter | undefined;
  /** TCP_INFO total_retrans at admission. */
  retransmitsBefore: number | undefined;
  /** Socket bytesWritten where this response starts; undefined until admitted. */
  wireStart: number | undefined;
  /** Socket bytesWritten after its last byte; undefined until Node has written it all. */
  wireEnd: number | undefined;
  /** Node emitted `finish`: every byte is in the socket (maybe not yet sent, let alone acknowledged). */
  finished = false;
  /** Node is done with it: finished, or closed before. */
  done = false;
  recorded = false;

  constructor(options: ResponseDeliveryOptions) {
    this.res = options.res;
    this.kernelPaceKbps = options.kernelPaceKbps;
    this.#options = options;
  }

  get admitted(): boolean {
    return this.wireStart !== undefined;
  }

  admit(wireStart: number): void {
    this.wireStart = wireStart;
    this.#options.admit(this);
  }

  markDone(finished: boolean): void {
    if (finished) this.finished = true;
    if (this.done) return;
    this.done = true;
    this.#options.onResponseDone?.();
  }

  /** Whether the client has acknowledged every byte, given the stream offset it acknowledged. */
  deliveredAt(acked: number): boolean {
    return this.finished && this.wireEnd !== undefined && acked >= this.wireEnd;
  }

  /**
   * Records the delivery. `acked`: stream offset acknowledged (undefined: unknown, no TCP_INFO);
   * `exact`: no more acknowledgements can come (socket open and read now, or reset).
   */
  /** `endAt`: when the delivery ended (performance.now()), if known better than now (the last acknowledgement). */
  end(reason: DeliveryEndReason, acked: number | undefined, exact: boolean, info?: TcpInfo, endAt: number = performance.now()): void {
    if (this.recorded) return;
    this.recorded = true;
    this.markDone(false);
    const written = this.meter?.bytes ?? 0;
    let bytes: number;
    let bytesExact: boolean;
    if (reason === 'delivered') {
      bytes = written;
      bytesExact = true;
    } else if (reason === 'sent') {
      bytes = written;
      bytesExact = false;
    } else if (acked === undefined || this.wireStart === undefined || !this.meter) {
      bytes = 0;
      bytesExact = this.wireStart === undefined || (exact && acked !== undefined);
    } else {
      const wireLength = (this.wireEnd ?? Number.MAX_SAFE_INTEGER) - this.wireStart;
      bytes = this.meter.bodyBytesWithin(Math.min(wireLength, Math.max(0, acked - this.wireStart)));
      bytesExact = exact;
    }
    this.#options.onRecord(
      trackedFields({
        status: this.res.statusCode,
        bytes,
        bytesExact,
        bytesWritten: written,
        startAt: this.meter?.firstByteAt ?? this.requestAt,
        endAt: Math.max(endAt, this.meter?.firstByteAt ?? this.requestAt),
        wallOffset: this.#wallOffset,
        retransmitsBefore: this.retransmitsBefore,
        info,
        reason,
      }),
    );
  }
}

/**
 * A record's measured fields from one delivery's facts (performance.now() times, `wallOffset` to turn
 * them into wall-clock ms): shared by HTTP/1.1 deliveries and HTTP/2 streams.
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

/**
 * One HTTP/1.1 response's place on its connection (connection.ts), which admits it, feeds it the
 * acknowledged stream offset (TCP_INFO bytes_acked) and ends it; this class turns that offset into the
 * body bytes its record says reached the client.
 *
 * Where the response sits in the connection's byte stream is known exactly: it is admitted only
 * once the previous response is written, so it starts at the socket's bytesWritten then (`wireStart`)
 * and ends at bytesWritten when Node has written its last byte (`prefinish`, `wireEnd`).
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { DeliveryEndReason } from 'sammy-pacing-protocol';
import type { PacedResponse } from '../engine/paced-response.js';
import type { TcpInfo } from '../socket/tcp-info.js';

export class ResponseDelivery {
  readonly response: PacedResponse;
  /**
   * Kernel pace this response puts on the socket, undefined for none. A response that changes
   * the socket's pace is admitted only once the bytes before it have left the socket.
   */
  readonly kernelPaceKbps: number | undefined;
  /** Set when admitted: where its body writes end on the wire. */
  #wire: WireMeter | undefined;
  /** Socket bytesWritten where this response starts; undefined until admitted. */
  wireStart: number | undefined;
  /** Socket bytesWritten after its last byte; undefined until Node has written it all. */
  wireEnd: number | undefined;
  /** Node emitted `finish`: every byte is in the socket (maybe not yet sent, let alone acknowledged). */
  finished = false;
  /** Node is done with it: finished, or closed before. */
  done = false;

  constructor(response: PacedResponse) {
    this.response = response;
    this.kernelPaceKbps = response.plannedKernelPaceKbps;
  }

  get res(): ServerResponse {
    return this.response.res;
  }

  get admitted(): boolean {
    return this.wireStart !== undefined;
  }

  /** Its turn has come at `wireStart` on `socket`: from now on its writes are metered. */
  admit(socket: Socket, wireStart: number): void {
    this.wireStart = wireStart;
    const wire = (this.#wire = new WireMeter(socket, wireStart));
    this.response.writes.onWritten = (bodyBytes) => wire.record(bodyBytes);
  }

  markDone(finished: boolean): void {
    if (finished) this.finished = true;
    if (this.done) return;
    this.done = true;
    // Node is done with it: anything still held would never go.
    this.response.writes.stopHolding();
  }

  /** Whether the client has acknowledged every byte, given the stream offset it acknowledged. */
  deliveredAt(acked: number): boolean {
    return this.finished && this.wireEnd !== undefined && acked >= this.wireEnd;
  }

  /**
   * Records the delivery. `acked`: stream offset acknowledged (undefined: unknown, no TCP_INFO);
   * `exact`: no more acknowledgements can come (socket open and read now, or reset); `endAt`: when
   * the delivery ended (performance.now()), if known better than now (the last acknowledgement).
   */
  end(reason: DeliveryEndReason, acked: number | undefined, exact: boolean, info?: TcpInfo, endAt?: number): void {
    if (this.response.recorded) return;
    this.markDone(false);
    const written = this.response.writes.bytes;
    let bytes: number;
    let bytesExact: boolean;
    if (reason === 'delivered' || reason === 'sent') {
      bytes = written;
      bytesExact = reason === 'delivered';
    } else if (acked === undefined || this.wireStart === undefined || !this.#wire) {
      bytes = 0;
      bytesExact = this.wireStart === undefined || (exact && acked !== undefined);
    } else {
      const wireLength = (this.wireEnd ?? Number.MAX_SAFE_INTEGER) - this.wireStart;
      bytes = this.#wire.bodyBytesWithin(Math.min(wireLength, Math.max(0, acked - this.wireStart)));
      bytesExact = exact;
    }
    this.response.end(reason, bytes, bytesExact, info, endAt);
  }
}

/**
 * Where each body write of an HTTP/1.1 response ends in its connection's byte stream, so that an
 * acknowledged stream offset (TCP_INFO bytes_acked) can be turned into body bytes that reached the
 * client. Fed by the response's write wrapper (body/writes.ts `onWritten`), which sees what
 * really goes to the socket.
 */

class WireMeter {
  readonly #socket: Socket;
  /** The socket's bytesWritten where the response begins: Node writes a connection's responses in order. */
  readonly #wireStart: number;
  /** Per write with body bytes: [wire offset (from wireStart) where the write ends, body bytes in it]. */
  readonly #writes: Array<[number, number]> = [];
  #lastWritten: number;

  constructor(socket: Socket, wireStart: number) {
    this.#socket = socket;
    this.#wireStart = wireStart;
    this.#lastWritten = wireStart;
  }

  /** After a write of `bodyBytes` was handed to the response. */
  record(bodyBytes: number): void {
    // Node writes the head, the chunk framing and the chunk synchronously (bytesWritten counts
    // what is still buffered): the body bytes are at the end of what this call added, framing aside.
    // A write that did not reach the socket (closed, not yet assigned) adds nothing: entries never overlap.
    const written = this.#socket.bytesWritten;
    if (written === undefined || written <= this.#lastWritten) return;
    const inWire = Math.min(bodyBytes, written - this.#lastWritten);
    if (inWire > 0) this.#writes.push([written - this.#wireStart, inWire]);
    this.#lastWritten = written;
  }

  /**
   * Body bytes among the response's first `wireBytes` bytes on the wire (head, framing and body).
   * Exact for a Content-Length body; with chunked framing a lower bound (framing counted as not body).
   */
  bodyBytesWithin(wireBytes: number): number {
    let body = 0;
    for (const [wireEnd, n] of this.#writes) {
      // The write's body bytes are its last n bytes (chunked framing adds 2 more after them: then
      // this start is 2 bytes late, which undercounts, never overcounts).
      const dataStart = wireEnd - n;
      if (wireBytes <= dataStart) break;
      body += Math.min(n, wireBytes - dataStart);
    }
    return body;
  }
}

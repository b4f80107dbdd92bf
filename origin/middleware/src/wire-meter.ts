/**
 * Where each body write of an HTTP/1.1 response ends in its connection's byte stream, so that an
 * acknowledged stream offset (TCP_INFO bytes_acked) can be turned into body bytes that reached the
 * client. Fed by the response's write wrapper (response-writes.ts `onWritten`), which sees what
 * really goes to the socket.
 */
import type { Socket } from 'node:net';

export class WireMeter {
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

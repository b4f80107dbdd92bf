/**
 * The pacing engine: one per middleware. It keeps one pacing object per connection (an HTTP/1.1
 * socket, an HTTP/2 session), hands each response to its connection, and tells its observers what it
 * paced (Server-Timing) and how each delivery ended (the records).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { PacingReport } from 'sammy-pacing-protocol';
import { Admission } from './engine/admission.js';
import type { NewDeliveryRecord } from './records/log.js';
import { Http1Connection } from './http1/connection.js';
import { Http2Connection } from './http2/connection.js';
import type { DeliveryObserver, EngineSettings, PacedConnection } from './engine/contract.js';
import { PacedResponse, type PaceRequest } from './engine/paced-response.js';

export class PacingEngine {
  readonly mechanism: EngineSettings['mechanism'];
  readonly #settings: EngineSettings;
  readonly #observers: readonly DeliveryObserver[];
  readonly #admission: Admission;
  readonly #sockets = new WeakMap<Socket, PacedConnection>();
  readonly #sessions = new WeakMap<Http2Session, PacedConnection>();
  /** Connections with deliveries under way, for close(). */
  readonly #busy = new Set<PacedConnection>();
  readonly #onIdle = (connection: PacedConnection) => this.#busy.delete(connection);
  #connectionCount = 0;
  #active = 0;

  constructor(settings: EngineSettings, observers: readonly DeliveryObserver[]) {
    this.mechanism = settings.mechanism;
    this.#settings = settings;
    this.#observers = observers;
    this.#admission = new Admission(settings, (res, report) => {
      for (const o of observers) o.paced?.(res, report);
    });
  }

  /** Responses not yet recorded (in flight, or waiting for their last byte to be acknowledged). */
  get activeResponses(): number {
    return this.#active;
  }

  /** Paces `res` at the pace `request` asks for (as its connection allows) and calls `next` once it is set. */
  deliver(req: IncomingMessage, res: ServerResponse, request: PaceRequest, next: () => void): void {
    const session = (req as unknown as Http2ServerRequest).stream?.session;
    const shared = req.httpVersionMajor === 2 && session !== undefined;
    const connection = shared
      ? this.#connection(this.#sessions, session, Http2Connection)
      : this.#connection(this.#sockets, req.socket, Http1Connection);
    this.#active++;
    const response = new PacedResponse(req, res, request, {
      connectionId: connection.id,
      httpVersion: shared ? '2' : req.httpVersion,
      plannedMechanism: this.mechanism,
      start: next,
      record: (record) => {
        this.#active--;
        for (const o of this.#observers) o.delivered?.(record);
      },
    });
    connection.deliver(response);
  }

  /** Stops waiting on deliveries, recording what is known; call when the server closes. */
  close(): void {
    for (const connection of [...this.#busy]) connection.shutdown();
    this.#busy.clear();
  }

  #connection<K extends object>(
    connections: WeakMap<K, PacedConnection>,
    key: K,
    Connection: new (
      id: number,
      key: K,
      admission: Admission,
      settings: EngineSettings,
      onIdle: (c: PacedConnection) => void,
    ) => PacedConnection,
  ): PacedConnection {
    let connection = connections.get(key);
    if (!connection) {
      connection = new Connection(++this.#connectionCount, key, this.#admission, this.#settings, this.#onIdle);
      connections.set(key, connection);
    }
    this.#busy.add(connection);
    return connection;
  }
}

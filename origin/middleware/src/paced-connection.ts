/** What the engine asks of a connection, HTTP/1.1 (one response after another) or HTTP/2 (many sharing one pace). */
import type { PacedResponse } from './paced-response.js';

export interface PacedConnection {
  /** Numbered from 1 per engine, in order of first request: the records' connectionId. */
  readonly id: number;
  /**
   * Takes a response: sets its pace on the connection when its turn comes (the connection's
   * Admission), lets its handler run (`response.start()`) and follows it to its record.
   */
  deliver(response: PacedResponse): void;
  /** Ends every delivery now (the server is closing), recording what is known. */
  shutdown(): void;
}

/**
 * The pacing engine's contract: what it is set up with, what it asks of a connection (HTTP/1.1, one
 * response after another; HTTP/2, many sharing one pace) and what it tells its observers
 * (Server-Timing, the records, the metrics).
 */
import type { ServerResponse } from 'node:http';
import type { CongestionControl, PacingMechanism, PacingReport } from 'sammy-pacing-protocol';
import type { SammyLogger } from '../logger.js';
import type { NewDeliveryRecord } from '../records/log.js';
import type { PacedResponse } from './paced-response.js';

/** The mechanisms this engine paces with (the records' `mechanism`; `none` when pacing is off). */
export type EngineMechanism = Extract<PacingMechanism, 'kernel' | 'userspace' | 'none'>;

/** What the pacing engine needs to know, defaults filled in. */
export interface EngineSettings {
  /** Mechanism paced responses use (a socket that refuses a kernel pace falls back to userspace). */
  mechanism: EngineMechanism;
  userspaceBurstMs: number;
  progressTimeoutMs: number;
  minReadKbps: number;
  congestionControl: CongestionControl | undefined;
  allowClientCongestionControl: boolean;
  log: SammyLogger;
  /** Client resets and GOAWAYs: told to the metrics, when enabled. */
  events?: EngineEventListener;
}

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

/** What the engine tells: each may be left out. */
export interface DeliveryObserver {
  /** A response's pace is set; its head is not written yet. */
  paced?(res: ServerResponse, report: PacingReport): void;
  /** A response's delivery ended. */
  delivered?(record: NewDeliveryRecord): void;
}

/**
 * What a connection tells beyond its responses' records, for metrics: a client's stream reset, a GOAWAY
 * the middleware sends. Optional: without a listener nothing is counted. (Progress timeouts need no
 * event: the responses they end are recorded `stalled`.)
 */
export type EngineEvent = { kind: 'client_reset' } | { kind: 'goaway_sent'; code: number };

export type EngineEventListener = (event: EngineEvent) => void;

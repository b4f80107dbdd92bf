/**
 * What a connection tells beyond its responses' records, for metrics: a progress timeout, a client's
 * stream reset, a GOAWAY the middleware sends. Optional: without a listener nothing is counted.
 */
export type EngineEvent =
  | { kind: 'progress_timeout'; httpVersion: '1.1' | '2'; scope: 'connection' | 'stream' }
  | { kind: 'client_reset' }
  | { kind: 'goaway_sent'; code: number };

export type EngineEventListener = (event: EngineEvent) => void;

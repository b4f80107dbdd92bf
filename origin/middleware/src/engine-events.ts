/**
 * What a connection tells beyond its responses' records, for metrics: a client's stream reset, a GOAWAY
 * the middleware sends. Optional: without a listener nothing is counted. (Progress timeouts need no
 * event: the responses they end are recorded `stalled`.)
 */
export type EngineEvent = { kind: 'client_reset' } | { kind: 'goaway_sent'; code: number };

export type EngineEventListener = (event: EngineEvent) => void;

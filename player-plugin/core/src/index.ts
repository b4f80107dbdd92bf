/**
 * Sammy's player-independent core: the pure algorithm (policy/), every tunable (config.ts), the
 * per-session state (session/) and the kit every player adapter is built on (adapter/). Each
 * export has a user outside this package (the adapters, their tests and benches, the lab) or a
 * reason given beside it.
 */
export { DEFAULT_PARAMETERS, PRESETS, type PacePreset, type SammyParameters } from './config.js';
export { isMediaKind, type MediaKind, type Phase } from './policy/types.js';
export type { PlaybackEvent } from './policy/phase.js';
// The error `attach`, `update` and `createSession` throw, and the least multiplier it names (dash.js re-exports it).
export { minimumMultiplier, SammyConfigError, type PaceShortfallDetail } from './policy/parameters.js';
// What a pace-only mode's player ABR declares (each adapter's abr-requirements.ts).
export { playerAbrOf, positiveOr, type PaceRequirement, type PlayerAbr } from './policy/pace-requirements.js';
// One decision outside a session: the dash.js decision bench.
export { decideBitrate, decidePace } from './policy/decide.js';
export { harmonicMeanKbps } from './policy/throughput.js';
export { createSession, type SammySession, type SammyControl, type SessionConfig } from './session/session.js';
// SegmentRequest: what `SammySession.decide` takes, for an adapter written without the kit.
export type { SammyDecision, SammyEvents, SegmentRequest, SegmentSample, TrackState } from './session/types.js';
export { defaultStore, memoryStore, type InitialThroughputStore } from './initial-history.js';
export type { AdapterController, AdapterOptions, PaceOnlyMode, SammyMode } from './adapter/types.js';
export { followMediaElement } from './adapter/media-element.js';
export { delegate } from './adapter/delegate.js';
// MediaRequest, PlayerDescription, RequestCarrier: what createAdapterKit and kit.send take.
export { createAdapterKit, type AdapterKit, type MediaRequest, type PlayerDescription, type RequestCarrier } from './adapter/kit.js';

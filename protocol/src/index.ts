/**
 * `sammy-pacing-protocol`: what Sammy's players and servers agree on. Named exports only, each
 * used outside this package (players, origins, demo, lab, end-to-end tests); the types are those
 * of the values' signatures.
 */
export {
  RTP_STEP_KBPS,
  BYTES_PER_SECOND_PER_KBPS,
  KBPS_PER_FASTLY_PACE_UNIT,
  roundRtpKbps,
  kbpsToBytesPerSecond,
  bytesPerSecondToKbps,
} from './units.js';
export { FASTLY_MIN_PACE, DEFAULT_MIN_PACE_KBPS, DEFAULT_MAX_PACE_KBPS, clampPaceKbps } from './limits.js';
export {
  SERVER_TIMING_METRICS,
  PACING_MECHANISMS,
  formatServerTiming,
  parseServerTiming,
  type PacingMechanism,
  type PacingReport,
  type ServerTimingEntry,
} from './server-timing.js';
export {
  UNPACED_REASONS,
  RTP_CLAMPS,
  isUnpacedReason,
  rtpClamp,
  type UnpacedReason,
  type IgnoredRtpReason,
  type RtpClamp,
} from './pace-reasons.js';
export {
  RECORDS_PATH,
  RECORD_EVENTS_PATH,
  RECORD_EVENT,
  RECORDS_SKIPPED_EVENT,
  DELIVERY_END_REASONS,
  type RecordsSkipped,
  type DeliveryRecord,
  type DeliveryEndReason,
} from './records.js';
export { CONGESTION_CONTROL_HEADER, CONGESTION_CONTROLS, isCongestionControl, type CongestionControl } from './congestion-control.js';
export { splitUrl, isCmcdParam, withoutCmcd, pathOf, type UrlParts } from './cmcd-url.js';
export {
  MAX_CMCD_PAYLOAD_BYTES,
  readRtp,
  readCmcdRequest,
  type HeaderRecord,
  type RtpReading,
  type CmcdRequestReading,
} from './cmcd-read.js';
export { checkCmcdMode, writeRtp, type CmcdMode, type CmcdCarrier } from './cmcd-write.js';
export {
  CMCD_OBJECT_TYPES,
  MEDIA_OBJECT_TYPES,
  SHARED_CONNECTION_IDLE_MS,
  CONNECTION_PACE_REASONS,
  decideConnectionPace,
  type CmcdObjectType,
  type ConnectionPaceInput,
  type ConnectionPaceReason,
  type ConnectionPaceDecision,
} from './shared-connection.js';
export { nearestName } from './nearest-name.js';
export { describeValue, unknownOptionMessage, wrongTypeError } from './option-errors.js';

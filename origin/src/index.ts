export { sammyPacing, type SammyPacingOptions, type SammyPacingHandler } from './middleware.js';
export { startOrigin, createOriginApp, DEFAULT_PORT, DEFAULT_HOST, DEFAULT_MAX_HEADER_BYTES, MEDIA_PATH, type StartOriginOptions, type RunningOrigin } from './server.js';
export { isPacingMode, PACING_MODES, resolvePacingMechanism, type PacingMode, type ResolvedMechanism } from './pacing-mechanism.js';
export { readRequestedRtp, stripCmcdQuery, CMCD_QUERY_PARAM, MAX_CMCD_PAYLOAD_BYTES, type RtpReading, type RtpSource } from './rtp.js';
export { DeliveryRecordLog, DEFAULT_RECORD_CAPACITY, type NewDeliveryRecord, type RecordListener } from './delivery-records.js';
export { paceResponseInUserspace, DEFAULT_BURST_MS, type UserspacePacer } from './userspace-pacer.js';
export {
  getCongestionControl,
  probeKernelPacing,
  readTcpInfo,
  setCongestionControl,
  setMaxPacingRate,
  socketFd,
  SocketOptionError,
} from './socket-options.js';
export { parseTcpInfo, TCP_INFO_OFFSETS, type TcpInfo } from './tcp-info.js';
export { defaultLogger, silentLogger, type SammyLogger } from './logger.js';
export { ensureContent, generateLadder, ffmpegPath, type EnsureContentOptions, type EnsuredContent, type GenerateOptions } from './content/generate.js';
export { DEFAULT_LADDER, ladderFfmpegArgs, type LadderSpec, type Rung } from './content/ladder.js';
export { DEFAULT_LADDER_DIR, DEFAULT_MEDIA_ROOT, DEFAULT_SITE_DIR, REPO_ROOT } from './content/paths.js';

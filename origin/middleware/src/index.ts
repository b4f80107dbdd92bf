/**
 * sammy-pacing-express: paces each response's socket at the CMCD `rtp` its request carries.
 *
 *   app.use(sammyPacing());          // before express.static or any handler that writes the body
 */
export { sammyPacing, type SammyPacingOptions, type SammyPacingHandler } from './middleware.js';
export { DeliveryRecordLog, DEFAULT_RECORD_CAPACITY, type RecordListener } from './delivery-records.js';
export { isPacingMode, PACING_MODES, type PacingMode } from './pacing-mechanism.js';
export { defaultLogger, silentLogger, type SammyLogger } from './logger.js';
export type { DeliveryRecord, PacingMechanism, PacingReport } from 'sammy-pacing-protocol';

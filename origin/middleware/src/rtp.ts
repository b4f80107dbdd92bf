/**
 * The middleware's CMCD handling is the shared one: reading the requested pace (bounded,
 * validated, never throwing) and keeping the CMCD parameter out of paths and cache keys.
 */
export { MAX_CMCD_PAYLOAD_BYTES, pathOf, readCmcdRequest, readRtp, withoutCmcd, type RtpReading } from 'sammy-pacing-protocol';

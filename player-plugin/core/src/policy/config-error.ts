import type { SammyParameters } from '../config.js';

/** Where a pace multiplier falls short: the buffer level and the least value that would do. */
export interface PaceShortfallDetail {
  /** Seconds; undefined where the level is named in words only (e.g. one segment of buffer). */
  bufferLevelSeconds: number | undefined;
  minimum: number;
  /** The rule that would be starved. */
  rule: string;
}

/** A configuration Sammy refuses: its message names the parameter and the value it needs. */
export class SammyConfigError extends Error {
  constructor(
    readonly parameter: keyof SammyParameters,
    message: string,
    /** For c0/c1 refused because the pace could starve an ABR rule. */
    readonly shortfall?: PaceShortfallDetail,
  ) {
    super(message);
    this.name = 'SammyConfigError';
  }
}

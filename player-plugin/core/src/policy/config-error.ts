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
  // (Declared and set in the constructor: no class-field definitions in the players' bundles.)
  declare readonly parameter: keyof SammyParameters;
  /** For c0/c1 refused because the pace could starve an ABR rule. */
  declare readonly shortfall?: PaceShortfallDetail;

  constructor(parameter: keyof SammyParameters, message: string, shortfall?: PaceShortfallDetail) {
    super(message);
    this.parameter = parameter;
    this.shortfall = shortfall;
    this.name = 'SammyConfigError';
  }
}

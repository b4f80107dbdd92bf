import { DEFAULT_MAX_BUFFER_SECONDS, DEFAULT_PARAMETERS, type SammyParameters } from '../config.js';
import { describeShortfall, sammyRuleShortfalls, type PlayerAbr } from './pace-requirements.js';

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

/**
 * Lowest pace multiplier that still lets the bitrate rule pick the top rung at an empty
 * buffer (Eq. 1 with B0 = 0): measured throughput ≈ pace·(1 − overhead) must reach top/β.
 * The least c0 of Sammy's own rule (c1's depends on the buffer: `sammyRuleShortfalls`).
 */
export function minimumMultiplier(beta: number, overhead: number): number {
  return 1 / (beta * (1 - overhead));
}

function requireFinite(name: keyof SammyParameters, value: number, min: number, max: number, minInclusive: boolean): void {
  const tooLow = minInclusive ? value < min : value <= min;
  if (typeof value !== 'number' || !Number.isFinite(value) || tooLow || value > max) {
    const lower = minInclusive ? `≥ ${min}` : `> ${min}`;
    throw new SammyConfigError(name, `Sammy: ${name} must be a number ${lower} and ≤ ${max}, got ${String(value)}`);
  }
}

function requireCount(name: keyof SammyParameters, value: number): void {
  if (!Number.isInteger(value) || value < 1 || value > 1000) {
    throw new SammyConfigError(name, `Sammy: ${name} must be a whole number from 1 to 1000, got ${String(value)}`);
  }
}

/**
 * Checks a full parameter set and returns it frozen. Rejects any set in which a pace could
 * starve the rule that picks bitrates: such a pace lowers measured throughput, which lowers the
 * bitrate — the rung is lost for good (the downward spiral). That rule is Sammy's own (Eq. 1
 * with its look-ahead, and its step-up hysteresis, at every buffer level of a buffer counted
 * full at `maxBufferSeconds`), or in pace-only mode the player's own rules (`playerAbr`, held
 * to them with its `check`), each over the buffer levels where it acts.
 */
export function validateParameters(p: SammyParameters, playerAbr?: PlayerAbr, maxBufferSeconds: number = DEFAULT_MAX_BUFFER_SECONDS): Readonly<SammyParameters> {
  requireFinite('beta', p.beta, 0, 1, false);
  requireFinite('overhead', p.overhead, 0, 0.5, true);
  requireFinite('lookaheadSeconds', p.lookaheadSeconds, 0, 3600, false);
  requireFinite('c0', p.c0, 0, 100, false);
  requireFinite('c1', p.c1, 0, 100, false);
  requireFinite('fullBufferShare', p.fullBufferShare, 0, 1, false);
  requireFinite('stepUpFactor', p.stepUpFactor, 0, 10, true);
  if (!['top', 'next-rung'].includes(p.paceBase)) throw new SammyConfigError('paceBase', "Sammy: paceBase must be 'top' or 'next-rung'");
  requireCount('throughputWindow', p.throughputWindow);
  requireCount('sessionSampleLimit', p.sessionSampleLimit);
  requireCount('historyLimit', p.historyLimit);
  requireFinite('initialVideoBitrateKbps', p.initialVideoBitrateKbps, 0, 1_000_000, false);
  // The pace counts the buffer as full at fullBufferShare × the player's level: the line c0 → c1 spans that.
  const full = (playerAbr ? playerAbr.maxBufferSeconds : maxBufferSeconds) * p.fullBufferShare;
  const shortfalls = playerAbr ? playerAbr.check(p, playerAbr.requirements, full) : sammyRuleShortfalls(p, full);
  // Report the strictest: the least value that clears every rule at once.
  const worst = shortfalls.reduce<(typeof shortfalls)[number] | undefined>((w, s) => (w === undefined || s.minimum > w.minimum ? s : w), undefined);
  if (worst) {
    throw new SammyConfigError(worst.parameter, describeShortfall(worst, p.overhead), {
      bufferLevelSeconds: worst.bufferLevelSeconds,
      minimum: worst.minimum,
      rule: worst.requirement.rule,
    });
  }
  return Object.freeze({ ...p });
}

/**
 * Merges overrides onto a base set, then validates the result (against `playerAbr` in pace-only
 * mode; Sammy's own rule at a buffer counted full at `maxBufferSeconds`).
 */
export function resolveParameters(
  overrides: Partial<SammyParameters> = {},
  base: Readonly<SammyParameters> = DEFAULT_PARAMETERS,
  playerAbr?: PlayerAbr,
  maxBufferSeconds?: number,
): Readonly<SammyParameters> {
  const merged: SammyParameters = { ...base };
  for (const key of Object.keys(base) as (keyof SammyParameters)[]) {
    const value = overrides[key];
    if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
  }
  return validateParameters(merged, playerAbr, maxBufferSeconds);
}

import { DEFAULT_PARAMETERS, type SammyParameters } from '../config.js';

/** A configuration Sammy refuses: its message names the parameter and the value it needs. */
export class SammyConfigError extends Error {
  constructor(
    readonly parameter: keyof SammyParameters,
    message: string,
  ) {
    super(message);
    this.name = 'SammyConfigError';
  }
}

/**
 * Lowest pace multiplier that still lets the bitrate rule pick the top rung at an empty
 * buffer (Eq. 1 with B0 = 0): measured throughput ≈ pace·(1 − overhead) must reach top/β.
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
 * fall below the Eq. 1 threshold of the top rung: such a pace lowers measured throughput, which
 * lowers the bitrate, which lowers nothing else — the rung is lost for good (the downward
 * spiral). The check uses an empty buffer, the strictest case, for both c0 and c1.
 */
export function validateParameters(p: SammyParameters): Readonly<SammyParameters> {
  requireFinite('beta', p.beta, 0, 1, false);
  requireFinite('overhead', p.overhead, 0, 0.5, true);
  requireFinite('lookaheadSeconds', p.lookaheadSeconds, 0, 3600, false);
  requireFinite('c0', p.c0, 0, 100, false);
  requireFinite('c1', p.c1, 0, 100, false);
  requireCount('throughputWindow', p.throughputWindow);
  requireCount('sessionSampleLimit', p.sessionSampleLimit);
  requireCount('historyLimit', p.historyLimit);
  requireFinite('initialVideoBitrateKbps', p.initialVideoBitrateKbps, 0, 1_000_000, false);
  const min = minimumMultiplier(p.beta, p.overhead);
  for (const name of ['c0', 'c1'] as const) {
    if (p[name] < min) {
      throw new SammyConfigError(
        name,
        `Sammy: ${name} = ${p[name]} cannot sustain the top rung with beta = ${p.beta} and ` +
          `${Math.round(p.overhead * 100)}% HTTP/TCP overhead: ${name} must be at least ${Math.ceil(min * 100) / 100} ` +
          `(1 / (beta × (1 − overhead))), or raise beta.`,
      );
    }
  }
  return Object.freeze({ ...p });
}

/** Merges overrides onto a base set, then validates the result. */
export function resolveParameters(
  overrides: Partial<SammyParameters> = {},
  base: Readonly<SammyParameters> = DEFAULT_PARAMETERS,
): Readonly<SammyParameters> {
  const merged: SammyParameters = { ...base };
  for (const key of Object.keys(base) as (keyof SammyParameters)[]) {
    const value = overrides[key];
    if (value !== undefined) merged[key] = value;
  }
  return validateParameters(merged);
}

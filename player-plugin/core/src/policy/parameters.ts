import { DEFAULT_BUFFER_TARGET_SECONDS, DEFAULT_PARAMETERS, type SammyParameters } from '../config.js';
import { withOptions } from '../options.js';
import { SammyConfigError } from './config-error.js';
import { describeShortfall, sammyRuleShortfalls, type PlayerAbr } from './pace-requirements.js';

// Its own module so pace-requirements.ts (pace-only mode's check) throws it without importing this one.
export { SammyConfigError, type PaceShortfallDetail } from './config-error.js';

/**
 * Lowest pace multiplier that still lets the bitrate rule pick the top rung at an empty
 * buffer (Eq. 1 with B0 = 0): measured throughput ≈ pace·(1 − overhead) must reach top/β.
 * The least c0 of Sammy's own rule (c1's depends on the buffer: `sammyRuleShortfalls`).
 */
export function minimumMultiplier(beta: number, overhead: number): number {
  return 1 / (beta * (1 - overhead));
}

/** Kind: 'i', min-inclusive; 'n', a count. */
type Range = readonly [min: number, max: number, kind?: 'i' | 'n'];

/**
 * The range of every numeric tunable: (min, max], [min, max] when min-inclusive, or a whole
 * number in [min, max] (counts). In the order they are checked.
 */
const RANGES: Readonly<Record<Exclude<keyof SammyParameters, 'paceBase'>, Range>> = {
  beta: [0, 1],
  overhead: [0, 0.5, 'i'],
  lookaheadSeconds: [0, 3600],
  c0: [0, 100],
  c1: [0, 100],
  fullBufferShare: [0, 1],
  fullBufferMaxSeconds: [0, Infinity],
  stepUpFactor: [0, 10, 'i'],
  probeInterval: [1, 1000, 'n'],
  capacityShare: [0, 1],
  linkShare: [0, 1, 'i'],
  throughputWindow: [1, 1000, 'n'],
  sessionSampleLimit: [1, 1000, 'n'],
  historyLimit: [1, 1000, 'n'],
  initialVideoBitrateKbps: [0, 1_000_000],
};

/** The buffer level the pace counts as full, seconds, for a player's buffer target: `fullBufferShare` of it, `fullBufferMaxSeconds` at most. */
export function fullBufferSeconds(targetSeconds: number, p: Readonly<SammyParameters>): number {
  return Math.min(targetSeconds * p.fullBufferShare, p.fullBufferMaxSeconds);
}

/**
 * Checks a full parameter set and returns it frozen. Rejects any set in which a pace could
 * starve the rule that picks bitrates: such a pace lowers measured throughput, which lowers the
 * bitrate — the rung is lost for good (the downward spiral). That rule is Sammy's own (Eq. 1
 * with its look-ahead, and its step-up hysteresis, at every buffer level of a buffer counted
 * full at `fullBufferSeconds(bufferTargetSeconds)`), or in pace-only mode the player's own rules (`playerAbr`, held
 * to them with its `check`), each over the buffer levels where it acts.
 */
function validateParameters(
  p: SammyParameters,
  playerAbr?: PlayerAbr,
  bufferTargetSeconds: number = DEFAULT_BUFFER_TARGET_SECONDS,
): Readonly<SammyParameters> {
  // Each numeric tunable in its range, in RANGES' order (inline: a function of its own cost the bundles 10 B).
  for (const [name, [min, max, kind]] of Object.entries(RANGES) as [keyof typeof RANGES, Range][]) {
    const value = p[name];
    // (A number: resolveParameters refused any other type. NaN fails every comparison.)
    const ok = kind === 'n' ? Number.isInteger(value) && value >= min : kind ? value >= min : value > min;
    if (!ok || !(value <= max)) {
      const range = kind === 'n' ? `a whole number from ${min} to ${max}` : `a number ${kind ? '≥' : '>'} ${min} and ≤ ${max}`;
      throw new SammyConfigError(name, `Sammy: ${name} must be ${range}, got ${value}`);
    }
  }
  if (!['top', 'next-rung'].includes(p.paceBase)) throw new SammyConfigError('paceBase', "Sammy: paceBase must be 'top' or 'next-rung'");
  // The pace counts the buffer as full at fullBufferShare × the player's level, fullBufferMaxSeconds at most: the line c0 → c1 spans that.
  const full = fullBufferSeconds(playerAbr ? playerAbr.bufferTargetSeconds : bufferTargetSeconds, p);
  // Pace-only mode's check also refuses probing (playerAbrOf), so a bundle without it carries neither.
  const shortfalls = playerAbr ? playerAbr.check(p, playerAbr.requirements, full) : sammyRuleShortfalls(p, full);
  // Report the strictest: the least value that clears every rule at once.
  const worst = shortfalls.reduce<(typeof shortfalls)[number] | undefined>(
    (w, s) => (w === undefined || s.minimum > w.minimum ? s : w),
    undefined,
  );
  if (worst) {
    throw new SammyConfigError(worst.parameter, describeShortfall(worst, p.overhead), {
      bufferLevelSeconds: worst.bufferLevelSeconds,
      minimum: worst.minimum,
      rule: worst.requirement.rule,
    });
  }
  return Object.freeze(p); // (p is resolveParameters' own fresh copy)
}

/**
 * Merges overrides onto a base set (a key that is not a tunable, or a value of another type than
 * the base's, is a TypeError: options.ts), then validates the result (against `playerAbr` in pace-only
 * mode; Sammy's own rule under a player whose buffer target is `bufferTargetSeconds`).
 */
export function resolveParameters(
  overrides: Partial<SammyParameters> = {},
  base: Readonly<SammyParameters> = DEFAULT_PARAMETERS,
  playerAbr?: PlayerAbr,
  bufferTargetSeconds?: number,
): Readonly<SammyParameters> {
  return validateParameters(withOptions(overrides, base), playerAbr, bufferTargetSeconds);
}

/**
 * What an ABR rule needs from a paced download, as data: the least measured throughput (a
 * multiple of the rung the pace is based on) it must see at each buffer level to keep, or step
 * up to, that rung. Sammy's own bitrate rule is one such rule (Eq. 1 with its look-ahead, and
 * its step-up hysteresis); in pace-only mode the player's own rules are (an adapter describes
 * them from the player's settings). One check, `scheduleShortfalls`, holds the pace schedule —
 * the line c0·(1 − B) + c1·B over the buffer fullness B — against a requirement at every buffer
 * level; `paceShortfalls` runs it over a player's requirements, `sammyRuleShortfalls` over
 * Sammy's own, so that a bundle without pace-only mode carries no player's requirements.
 */
import { PRESETS, type PacePreset, type SammyParameters } from '../config.js';
import { SammyConfigError } from './config-error.js';
import { bufferFullness, paceMultiplier } from './pace-rate.js';

export interface PaceRequirement {
  /** Who needs it, as messages continue "cannot sustain the top rung …": "under dash.js's ThroughputRule (bandwidthSafetyFactor 0.9)". */
  rule: string;
  /** Why, one clause: "it picks the top rung only if its estimate × 0.9 reaches the top bitrate". */
  reason: string;
  /** Least measured throughput the rule needs, × the rung (at an empty buffer when `multipleAt` is given). */
  throughputMultiple: number;
  /**
   * The least measured throughput at a buffer level (seconds), × the rung, for a need that falls
   * as the buffer grows (Eq. 1's look-ahead); it must never rise with the buffer. Without it:
   * `throughputMultiple` at every level of the range.
   */
  multipleAt?: (bufferSeconds: number) => number;
  /** Buffer levels where the rule acts, seconds. Default: from 0 to Infinity, every level. */
  fromBufferSeconds?: number;
  toBufferSeconds?: number;
  /**
   * Where it is checked, when not at one buffer level the pace maps to c0…c1 (e.g. "at one
   * segment of buffer", the segment duration unknown): then c0 and c1 both must clear it.
   * `bufferSeconds`: that level when it is known.
   */
  at?: { where: string; bufferSeconds?: number };
  /** Another way out than raising c0/c1, for messages: "or raise beta". */
  remedy?: string;
}

/** A player's own ABR, as the pace must serve it (pace-only mode). */
export interface PlayerAbr {
  /** For messages: "dash.js". */
  name: string;
  requirements: readonly PaceRequirement[];
  /** The player's buffer target, seconds: the pace's full level follows from it (`fullBufferSeconds`). */
  bufferTargetSeconds: number;
  /** The factor the player applies to its estimate (dash.js's bandwidthSafetyFactor): the start bitrate from the history uses it. */
  safetyFactor: number;
  /**
   * The check the validation holds the pace to these requirements with: `paceShortfalls` (`playerAbrOf`'s also
   * refuses probing, `probeInterval` > 1, naming the player). The
   * adapter's pace-only entry passes it in, so that the validation itself never imports it and a
   * bundle without pace-only mode leaves it out.
   */
  check: typeof paceShortfalls;
  /**
   * The pace design pace-only mode starts from: `PRESETS.paper` (the defaults' lower pace relies
   * on Sammy's own rule). Passed in, like `check`, so that a bundle without pace-only mode
   * carries no preset.
   */
  pace: PacePreset;
}

/** One requirement a pace misses: the parameter to raise, the buffer level where it falls short, and its least value. */
export interface PaceShortfall {
  parameter: 'c0' | 'c1';
  value: number;
  /** The buffer level where the pace falls furthest short, seconds; undefined when not known (see `where`). */
  bufferLevelSeconds: number | undefined;
  /** That buffer level in words, for messages. */
  where: string;
  /** Least value of `parameter` (c0 raised first when both fall short), rounded up to 0.01. */
  minimum: number;
  /** What the rule needs at that level, × the rung (measured, before overhead). */
  need: number;
  requirement: PaceRequirement;
}

/**
 * Sammy's own bitrate rule: it keeps a rung r while its estimate x ≥ r·β⁻¹·(1 + B0/D)⁻¹ (Eq. 1,
 * B0 the buffer in seconds), and steps up to r only from x ≥ stepUpFactor·r as well. And a pace
 * measured below the rung itself drains the buffer (Appendix A: it grows only while x > r) until
 * the pace has risen back to the rung, so a multiplier below that never holds: it only moves the
 * buffer down toward Eq. 1's line and the rung in and out (the equilibrium sits where the pace
 * carries the rung). So at a buffer of B0 the pace must be measured at
 * max(β⁻¹·(1 + B0/D)⁻¹, stepUpFactor, 1) × the rung it is based on: the rule then keeps that rung
 * (the top) with the buffer not draining, or can step up to it (the next rung up).
 */
export function sammyRuleRequirement(p: Pick<SammyParameters, 'beta' | 'lookaheadSeconds' | 'stepUpFactor'>): PaceRequirement {
  const { beta, lookaheadSeconds, stepUpFactor } = p;
  const floor = Math.max(stepUpFactor, 1);
  return {
    rule: `with beta = ${beta} (Sammy's rule)`,
    reason: `Eq. 1 (look-ahead ${lookaheadSeconds} s), stepUpFactor ${stepUpFactor} and an undrained buffer need`,
    throughputMultiple: Math.max(1 / beta, floor),
    multipleAt: (b) => Math.max(1 / beta / (1 + b / lookaheadSeconds), floor),
    remedy: 'or raise beta',
  };
}

const ceil2 = (x: number) => Math.ceil(x * 100 - 1e-9) / 100;

/** Buffer levels a per-level check visits between the ends of a range (the ends included). */
const STEPS = 64;

function describeBuffer(bufferSeconds: number, fullness: number, fullBufferSeconds: number): string {
  if (bufferSeconds <= 0) return 'at an empty buffer';
  if (fullness >= 1) return `at a full buffer (${fullBufferSeconds} s)`;
  return `at a buffer of ${Math.round(bufferSeconds * 10) / 10} s`;
}

/**
 * Where the schedule falls short of one requirement. The pace multiplier is c0·(1 − B) + c1·B up
 * to the full level and c1 above, B = buffer / fullBufferSeconds; the requirement (after
 * overhead: measured = pace × (1 − overhead)) is checked at every buffer level of its range — at
 * its ends and at 64 steps between, which is exact for a need that is constant or convex in
 * the buffer, as Eq. 1's is (the least c1 is then set at the top of the range). Above the full
 * level the pace stays at c1 and the need does not rise: the full level stands for them all.
 * c0 is raised first (it alone sets the pace at an empty buffer), c1 from there.
 */
export function scheduleShortfalls(
  p: Pick<SammyParameters, 'c0' | 'c1' | 'overhead'>,
  requirement: PaceRequirement,
  fullBufferSeconds: number,
): PaceShortfall[] {
  const shortfalls: PaceShortfall[] = [];
  const { at, multipleAt, throughputMultiple } = requirement;
  // The least multiplier that measures `need` after the overhead (a hair of slack for rounding).
  const least = (need: number) => need / (1 - p.overhead) - 1e-12;
  const add = (parameter: 'c0' | 'c1', minimum: number, need: number, level: number | undefined, where: string) =>
    shortfalls.push({
      parameter,
      value: p[parameter],
      bufferLevelSeconds: level,
      where,
      minimum: ceil2(minimum + 1e-12),
      need,
      requirement,
    });
  const needAt = (b: number) => (multipleAt ? multipleAt(b) : throughputMultiple);

  if (at) {
    // The level is not known on the c0→c1 line: both ends must clear the need there.
    const need = at.bufferSeconds !== undefined ? needAt(at.bufferSeconds) : throughputMultiple;
    for (const parameter of ['c0', 'c1'] as const)
      if (p[parameter] < least(need)) add(parameter, least(need), need, at.bufferSeconds, at.where);
    return shortfalls;
  }

  // With no finite full level the pace is c0 at every level (bufferFullness): the range's start decides.
  const full = fullBufferSeconds > 0 && fullBufferSeconds < Infinity ? fullBufferSeconds : 0;
  const from = Math.max(0, requirement.fromBufferSeconds ?? 0);
  const to = full ? Math.max(from, Math.min(requirement.toBufferSeconds ?? Infinity, full)) : from;
  // c0 first: where the buffer counts as empty the pace is c0 alone (and the need highest).
  let c0 = p.c0;
  if (bufferFullness(from, full) <= 0 && c0 < least(needAt(from))) {
    c0 = least(needAt(from));
    add('c0', c0, needAt(from), from, describeBuffer(from, 0, full));
  }
  // c1: the least value with which the line clears the need at every level above empty.
  let worst: { minimum: number; b: number; need: number; f: number } | undefined;
  for (let i = 0; i <= STEPS; i++) {
    const b = i === STEPS ? to : from + ((to - from) * i) / STEPS;
    const f = bufferFullness(b, full);
    const need = needAt(b);
    if (f <= 0 || paceMultiplier(f, c0, p.c1) >= least(need)) continue;
    const minimum = (least(need) - c0 * (1 - f)) / f;
    if (!worst || minimum > worst.minimum) worst = { minimum, b, need, f };
  }
  if (worst) add('c1', worst.minimum, worst.need, worst.b, describeBuffer(worst.b, worst.f, full));
  return shortfalls;
}

/** Every requirement the pace misses (pace-only mode: the player's rules). */
export function paceShortfalls(
  p: Pick<SammyParameters, 'c0' | 'c1' | 'overhead'>,
  requirements: readonly PaceRequirement[],
  fullBufferSeconds: number,
): PaceShortfall[] {
  return requirements.flatMap((requirement) => scheduleShortfalls(p, requirement, fullBufferSeconds));
}

/**
 * Sammy's own rule, at every buffer level of a buffer counted full at `fullBufferSeconds`: the
 * special case of `paceShortfalls(p, [sammyRuleRequirement(p)], fullBufferSeconds)` (tested
 * equal) that a bundle without pace-only mode carries instead of the general check. Its need is
 * convex and never rises with the buffer, and the pace is a line up to the full level and flat
 * above: a line at or above a convex need at both ends is above it at every level between (it
 * lies above the chord), so the empty and the full level decide — c0 at the one, c1 (with c0 as
 * it must be) at the other.
 */
export function sammyRuleShortfalls(
  p: Pick<SammyParameters, 'beta' | 'lookaheadSeconds' | 'stepUpFactor' | 'c0' | 'c1' | 'overhead'>,
  fullBufferSeconds: number,
): PaceShortfall[] {
  const requirement = sammyRuleRequirement(p);
  const full = fullBufferSeconds > 0 && fullBufferSeconds < Infinity ? fullBufferSeconds : 0;
  const shortfalls: PaceShortfall[] = [];
  // Without a full level the pace is c0 at every level.
  for (const [parameter, level] of [
    ['c0', 0],
    ['c1', full],
  ] as const) {
    const need = requirement.multipleAt!(level);
    const least = need / (1 - p.overhead);
    if (p[parameter] < least - 1e-12 && (level || parameter < 'c1')) {
      shortfalls.push({
        parameter,
        value: p[parameter],
        bufferLevelSeconds: level,
        where: level ? `at a full buffer (${full} s)` : 'at an empty buffer',
        minimum: ceil2(least),
        need,
        requirement,
      });
    }
  }
  return shortfalls;
}

/** The message of a shortfall: the parameter, its value, where the pace falls short, why, and the minimum. */
export function describeShortfall(s: PaceShortfall, overhead: number): string {
  const { requirement: r } = s;
  return (
    `Sammy: ${s.parameter} = ${s.value} cannot sustain the top rung ${r.rule} ${s.where}: ${r.reason} ` +
    `(${Math.round(s.need * 100) / 100}× the rung after ${Math.round(overhead * 100)}% overhead), ` +
    `so ${s.parameter} must be at least ${s.minimum}${r.remedy ? `, ${r.remedy}` : ''}.`
  );
}

/**
 * A pace-only entry's `PlayerAbr`: the player's requirements with the general check and the
 * paper's pace design filled in (only a pace-only entry imports this, so only it bundles them).
 */
export function playerAbrOf(
  name: string,
  safetyFactor: number,
  requirements: readonly PaceRequirement[],
  bufferTargetSeconds: number,
): PlayerAbr {
  const check: PlayerAbr['check'] = (p, ...rest) => {
    // A held segment keeps the floor of Sammy's own rule; a player's own ABR would go by its pace.
    if ((p as Partial<SammyParameters>).probeInterval! > 1)
      throw new SammyConfigError(
        'probeInterval',
        `Sammy: probeInterval must be 1 in pace-only mode: ${name}'s own ABR would measure the held segments`,
      );
    return paceShortfalls(p, ...rest);
  };
  return { name, requirements, bufferTargetSeconds, safetyFactor, check, pace: PRESETS.paper };
}

/** A player setting as a pace-only entry reads it: a positive finite number, else the player's default. */
export function positiveOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && value > 0 && Number.isFinite(value) ? value : fallback;
}

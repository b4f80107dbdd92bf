/**
 * What an ABR rule needs from a paced download, as data: the least measured throughput (a
 * multiple of the top video bitrate) it must see over a range of buffer levels to keep, or step
 * up to, the top rung. Sammy's own bitrate rule is one such rule (Eq. 1); in pace-only mode the
 * player's own rules are (an adapter describes them from the player's settings). One check,
 * `paceShortfalls`, holds a pace — c0 at an empty buffer, c1 at a full one — against them all;
 * `sammyRuleShortfalls` is its special case for Sammy's own rule, so that a bundle without
 * pace-only mode carries neither the general check nor a player's requirements.
 */
import type { SammyParameters } from '../config.js';
import { bufferFullness, paceMultiplier } from './pace-rate.js';

export interface PaceRequirement {
  /** Who needs it, as messages continue "cannot sustain the top rung …": "under dash.js's ThroughputRule (bandwidthSafetyFactor 0.9)". */
  rule: string;
  /** Why, one clause: "it picks the top rung only if its estimate × 0.9 reaches the top bitrate". */
  reason: string;
  /** Least measured throughput the rule needs, × the top video bitrate. */
  throughputMultiple: number;
  /** Buffer levels where the rule acts, seconds; `toBufferSeconds` may be Infinity. */
  fromBufferSeconds: number;
  toBufferSeconds: number;
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
  /** The buffer level the pace counts as full, seconds: places the rules' buffer ranges on the c0→c1 line. */
  maxBufferSeconds: number;
  /** The factor the player applies to its estimate (dash.js's bandwidthSafetyFactor): the start bitrate from the history uses it. */
  safetyFactor: number;
  /**
   * The check the validation holds the pace to these requirements with: `paceShortfalls`. The
   * adapter's pace-only entry passes it in, so that the validation itself never imports it and a
   * bundle without pace-only mode leaves it out.
   */
  check: typeof paceShortfalls;
}

/** One requirement a pace misses: the parameter to raise, the buffer level where it falls short, and its least value. */
export interface PaceShortfall {
  parameter: 'c0' | 'c1';
  value: number;
  /** The buffer level where the pace is lowest within the rule's range, seconds; undefined when not known (see `where`). */
  bufferLevelSeconds: number | undefined;
  /** That buffer level in words, for messages. */
  where: string;
  /** Least value of `parameter` (the other one unchanged), rounded up to 0.01. */
  minimum: number;
  requirement: PaceRequirement;
}

/**
 * Sammy's own bitrate rule (Eq. 1, B0 = 0): it picks the top rung at an empty buffer only
 * from a measured throughput of top/β. Checked for c0 and c1 alike, the strictest case.
 */
export function sammyRuleRequirement(beta: number): PaceRequirement {
  return {
    rule: `with beta = ${beta} (Sammy's bitrate rule, Eq. 1)`,
    reason: 'it picks the top rung at an empty buffer only from a measured throughput of top / beta',
    throughputMultiple: 1 / beta,
    fromBufferSeconds: 0,
    toBufferSeconds: Infinity,
    at: { where: 'at an empty buffer, the strictest case, checked for c0 and c1 alike', bufferSeconds: 0 },
    remedy: 'or raise beta',
  };
}

const ceil2 = (x: number) => Math.ceil(x * 100 - 1e-9) / 100;

/**
 * `paceShortfalls(p, [sammyRuleRequirement(p.beta)], Infinity)` without the general machinery:
 * that requirement is checked at an empty buffer for c0 and c1 alike, so each falls short below
 * the same least value, top/β measured after the overhead. The validation's default.
 */
export function sammyRuleShortfalls(p: Pick<SammyParameters, 'beta' | 'c0' | 'c1' | 'overhead'>): PaceShortfall[] {
  const requirement = sammyRuleRequirement(p.beta);
  const need = requirement.throughputMultiple / (1 - p.overhead);
  return (['c0', 'c1'] as const)
    .filter((parameter) => p[parameter] < need - 1e-12)
    .map((parameter) => ({ parameter, value: p[parameter], bufferLevelSeconds: 0, where: requirement.at!.where, minimum: ceil2(need), requirement }));
}

function describeBuffer(bufferSeconds: number, fullness: number, maxBufferSeconds: number): string {
  if (fullness <= 0) return 'at an empty buffer';
  if (fullness >= 1) return `at a full buffer (${maxBufferSeconds} s)`;
  return `at a buffer of ${Math.round(bufferSeconds * 10) / 10} s`;
}

/**
 * Every requirement the pace misses. The pace multiplier is linear in the buffer level up to
 * the full level and constant above, so over a rule's buffer range it is lowest at one end:
 * both ends are checked. Measured throughput is the pace less `overhead` (headers, framing),
 * and the pace base is at least the top video bitrate, so the check is conservative.
 */
export function paceShortfalls(
  p: Pick<SammyParameters, 'c0' | 'c1' | 'overhead'>,
  requirements: readonly PaceRequirement[],
  maxBufferSeconds: number,
): PaceShortfall[] {
  const shortfalls: PaceShortfall[] = [];
  for (const requirement of requirements) {
    const need = requirement.throughputMultiple / (1 - p.overhead);
    const from = Math.max(0, requirement.fromBufferSeconds);
    const to = Math.max(from, Math.min(requirement.toBufferSeconds, maxBufferSeconds));
    // A rule that spans every buffer level without one of its own sees both ends of the line.
    const ends = requirement.at !== undefined ? [0, Infinity] : [from, to];
    for (const end of ends) {
      const f = Number.isFinite(end) ? bufferFullness(end, maxBufferSeconds) : 1;
      if (paceMultiplier(f, p.c0, p.c1) >= need - 1e-12) continue;
      // Raise the parameter that is lower at this end: c0 at an empty buffer, c1 at a full one,
      // and in between whichever the line falls toward.
      const parameter = f <= 0 ? 'c0' : f >= 1 ? 'c1' : p.c1 < p.c0 ? 'c1' : 'c0';
      const exact = parameter === 'c0' ? (need - p.c1 * f) / (1 - f) : (need - p.c0 * (1 - f)) / f;
      const level = Number.isFinite(end) ? end : maxBufferSeconds;
      shortfalls.push({
        parameter,
        value: p[parameter],
        bufferLevelSeconds: requirement.at ? requirement.at.bufferSeconds : level,
        where: requirement.at?.where ?? describeBuffer(level, f, maxBufferSeconds),
        minimum: ceil2(exact),
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
    `(${Math.round(r.throughputMultiple * 100) / 100}× the top bitrate, measured after ${Math.round(overhead * 100)}% HTTP/TCP overhead), ` +
    `so ${s.parameter} must be at least ${s.minimum}${r.remedy ? `, ${r.remedy}` : ''}.`
  );
}

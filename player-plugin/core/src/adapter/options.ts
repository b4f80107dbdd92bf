/**
 * `attach()` options: the adapter's own keys, the tunables, and nothing else. A key that is
 * neither is refused with the nearest known one: a typo in a script-tag page would otherwise
 * change nothing and say nothing.
 */
import { DEFAULT_PARAMETERS, type SammyParameters } from '../config.js';

/** The options every adapter takes besides the tunables (AdapterOptions). */
const ADAPTER_KEYS = ['mode', 'enabled', 'cmcdMode', 'maxBufferSeconds', 'initialHistory'] as const;

/** Edit distance between two option names (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/** Throws a TypeError naming each key that is not an option, and the known key nearest to it. */
export function checkOptionKeys(options: object, extraKeys: readonly string[] = []): void {
  const known = [...ADAPTER_KEYS, ...extraKeys, ...Object.keys(DEFAULT_PARAMETERS)];
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const nearest = known.reduce((best, k) => (distance(key.toLowerCase(), k.toLowerCase()) < distance(key.toLowerCase(), best.toLowerCase()) ? k : best));
    throw new TypeError(`Sammy: unknown option '${key}' (did you mean '${nearest}'?)`);
  }
}

/** The tunables among the options (the adapter's own keys left out). */
export function parametersOf(options: object): Partial<SammyParameters> {
  const parameters: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (!(ADAPTER_KEYS as readonly string[]).includes(key)) parameters[key] = value;
  return parameters as Partial<SammyParameters>;
}

/**
 * `attach()` options: the adapter's own keys, the tunables, and nothing else. A key that is
 * neither is refused with the nearest known one: a typo in a script-tag page would otherwise
 * change nothing and say nothing.
 */
import { DEFAULT_PARAMETERS } from '../config.js';

/** Edit distance between two names, case ignored (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  let row = [...Array(b.length + 1).keys()];
  for (let i = 0; i < a.length; i++) {
    const next = [i + 1];
    for (let j = 0; j < b.length; j++) next.push(Math.min(row[j + 1]! + 1, next[j]! + 1, row[j]! + (a[i] === b[j] ? 0 : 1)));
    row = next;
  }
  return row[b.length]!;
}

/** Throws a TypeError naming the first key that is not an option, and the known key nearest to it. */
export function checkOptionKeys(options: object): void {
  const known = ['mode', 'enabled', 'cmcdMode', 'maxBufferSeconds', 'initialHistory', ...Object.keys(DEFAULT_PARAMETERS)];
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const nearest = known.reduce((best, k) => (distance(key, k) < distance(key, best) ? k : best));
    throw new TypeError(`Sammy: unknown option '${key}' (did you mean '${nearest}'?)`);
  }
}

/**
 * The "did you mean" of every options check, players' and servers' alike: the known name nearest
 * to a misspelt one. Small on purpose, as it ships in every player adapter's bundle.
 */

/** Edit distance between two names (insertions, deletions, substitutions; a changed case counts). */
function distance(a: string, b: string): number {
  let row = [...Array(b.length + 1).keys()];
  for (const c of a)
    row = row.reduce<number[]>(
      (next, d, j) => [...next, j ? Math.min(d + 1, next[j - 1]! + 1, row[j - 1]! + +(c !== b[j - 1])) : d + 1],
      [],
    );
  return row[b.length]!;
}

/** The name in `known` (not empty) nearest to `key` by edit distance; the first of equals. */
export function nearestName(key: string, known: readonly string[]): string {
  return known.reduce((best, k) => (distance(key, k) < distance(key, best) ? k : best));
}

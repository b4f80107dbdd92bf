import { it } from 'vitest';

/**
 * A target test that knows its misses: a key listed in `misses` runs as `it.fails` with the reason in
 * its name, so a miss that is fixed fails too (and the list must be updated), as does a new one.
 */
export function targetChecks(misses: Readonly<Record<string, string>>) {
  return (key: string, name: string, body: () => void) => (misses[key] ? it.fails(`${name} — KNOWN MISS: ${misses[key]}`, body) : it(name, body));
}

/**
 * Flags of the bench's own small programs (lab server, neighbours), which run as separate processes.
 */

/** The value after `--name` on this process's command line, else `fallback`; throws when neither is there. */
export function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : fallback;
  if (v === undefined) throw new Error(`missing --${name}`);
  return v;
}

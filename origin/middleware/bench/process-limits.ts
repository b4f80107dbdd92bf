/** The open-file limit matters here: 500 stalled readers + 100 clients + the server side is over 1200 descriptors. */
import { readFileSync } from 'node:fs';

/** Soft RLIMIT_NOFILE of this process, from /proc (Node has no getrlimit). */
export function openFileLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const soft = line?.split(/\s{2,}/)[1];
  return soft === undefined || soft === 'unlimited' ? Infinity : Number(soft);
}

/**
 * `tsx bench/profile-top.ts <file.cpuprofile> [n] [--files]`: the functions a V8 CPU profile (node --cpu-prof, e.g.
 * from SAMMY_BENCH_CPU_PROF) spent most self time in, with their share: where the origin's one thread goes. `--files`
 * sums self time by source file instead (the middleware's files against Node's, koffi's, the idle loop's).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
}

const args = process.argv.slice(2);
const byFile = args.includes('--files');
const [file, n = '25'] = args.filter((a) => a !== '--files');
if (!file) throw new Error('usage: tsx bench/profile-top.ts <file.cpuprofile> [n] [--files]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byFunction = new Map<string, number>();
let total = 0;
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0;
  total += hits;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|origin|protocol)\//, '$1/')}:${lineNumber + 1}` : '';
  const key = byFile
    ? url
      ? where.replace(/:\d+$/, '')
      : functionName || '(anonymous)'
    : `${functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
}
const rows = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(n));
console.log(`${total} samples`);
for (const [key, hits] of rows) console.log(`${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}`);

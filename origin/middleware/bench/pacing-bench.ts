/**
 * `npm run bench:origin [-- --only <part>[,<part>…]]`: the origin's benchmarks, each against a real origin in a
 * child process (its CPU and memory its own), figures printed, ratios taken within one run, and a final table of
 * every figure against its target. Parts (about 6 minutes in all):
 *   rates           pacing error at 2–100 Mbps on a warmed connection, kernel and userspace   (rates-and-cpu.ts)
 *   cpu             server CPU, 100 paced streams vs the same unpaced                          (rates-and-cpu.ts)
 *   first-response  3 MB at 4–20 Mbps on new connections: loopback, and veth as root           (first-response.ts)
 *   stalled         500 stalled readers beside 100 normal clients                              (stalled-readers.ts)
 *   concurrency     300 concurrent paced clients                                               (concurrency.ts)
 *   h2              pacing error and CPU over HTTP/2 with TLS                                  (http2.ts)
 * Exit code 1 if a target was missed. SAMMY_BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each origin child there.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { makeMediaDir } from '../test/helpers.js';
import { killAllChildren } from './child-process.js';
import { concurrencyBench } from './concurrency.js';
import { http2Bench } from './http2.js';
import { firstResponseBench, writeFirstResponseMedia } from './first-response.js';
import { cpuBench, RATE_SECONDS, RATES_MBPS, ratesBench, writeStreamMedia } from './rates-and-cpu.js';
import { stalledReadersBench, writeStalledReaderMedia } from './stalled-readers.js';
import { Summary } from './summary.js';

const PARTS = ['rates', 'cpu', 'first-response', 'stalled', 'concurrency', 'h2'] as const;
type Part = (typeof PARTS)[number];

const { values } = parseArgs({ options: { only: { type: 'string', multiple: true }, help: { type: 'boolean' } } });
if (values.help) {
  console.log(`usage: npm run bench:origin [-- --only <part>[,<part>…]]\nparts: ${PARTS.join(', ')}`);
  process.exit(0);
}
const asked = (values.only ?? [])
  .flatMap((s) => s.split(','))
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = asked.filter((p) => !(PARTS as readonly string[]).includes(p));
if (unknown.length) {
  console.error(`unknown part(s): ${unknown.join(', ')}; parts: ${PARTS.join(', ')}`);
  process.exit(2);
}
const parts = new Set<Part>(asked.length ? (asked as Part[]) : PARTS);

const media = makeMediaDir(
  RATES_MBPS.map((m) => m * 1000),
  RATE_SECONDS,
);
writeStreamMedia(media.dir);
writeFirstResponseMedia(media.dir, randomBytes(3_000_000));
writeStalledReaderMedia(media.dir);

const summary = new Summary();
const started = performance.now();
let failed = false;
try {
  if (parts.has('rates')) await ratesBench(media.dir, summary);
  if (parts.has('cpu')) await cpuBench(media.dir, summary);
  if (parts.has('first-response')) await firstResponseBench(media.dir, summary);
  if (parts.has('stalled')) await stalledReadersBench(media.dir, summary);
  if (parts.has('concurrency')) await concurrencyBench(media.dir, summary);
  if (parts.has('h2')) await http2Bench(media.dir, summary);
} catch (err) {
  failed = true;
  console.error(`\nbenchmark failed: ${(err as Error).stack ?? err}`);
} finally {
  killAllChildren();
  media.remove();
}
summary.print();
console.log(`\n(${((performance.now() - started) / 1000).toFixed(0)} s)`);
process.exitCode = failed || summary.missed > 0 ? 1 : 0;

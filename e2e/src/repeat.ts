/**
 * `npm run e2e:repeat -- [N] [playwright args]` (default 20): runs the e2e suite N times in a row (or what the
 * extra arguments select, e.g. `tests/demo.spec.ts`), each run on a
 * fresh origin as `npm test -w @sammy/e2e` does, and reports which runs failed and which tests.
 * A test that fails one run in twenty is a bug, not noise to retry. Each run's output and failure
 * artifacts (traces, screenshots) are kept under <repo>/.cache/e2e-repeat/run-<i>/ (not under test-results/, which
 * any other Playwright run empties). Exit code 1 if any run failed.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAILURES_ENV, type RunFailures } from './failure-reporter.js';

const E2E_DIR = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = join(E2E_DIR, '..', '.cache', 'e2e-repeat');
const MAX_RUNS = 1000;

function runsWanted(arg: string | undefined): number {
  if (arg === undefined) return 20;
  const n = Number(arg);
  if (!Number.isInteger(n) || n < 1 || n > MAX_RUNS) {
    console.error(`e2e:repeat: the number of runs must be an integer in [1, ${MAX_RUNS}], got ${JSON.stringify(arg)}`);
    process.exit(2);
  }
  return n;
}

/** One suite run; its output goes to run-<i>/output.log. */
function runOnce(i: number, extra: readonly string[]): Promise<{ code: number; failures: RunFailures | undefined; ms: number }> {
  const dir = join(OUT_DIR, `run-${i}`);
  mkdirSync(dir, { recursive: true });
  const failuresFile = join(dir, 'failures.json');
  const log = createWriteStream(join(dir, 'output.log'));
  const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const reporter = join(E2E_DIR, 'src', 'failure-reporter.ts');
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'test', `--reporter=line,${reporter}`, `--output=${join(dir, 'artifacts')}`, ...extra], {
    cwd: E2E_DIR,
    env: { ...process.env, [FAILURES_ENV]: failuresFile, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      log.end();
      const failures = existsSync(failuresFile) ? (JSON.parse(readFileSync(failuresFile, 'utf8')) as RunFailures) : undefined;
      resolve({ code: code ?? (signal ? 128 : 1), failures, ms: performance.now() - started });
    });
  });
}

const runs = runsWanted(process.argv[2]);
const extra = process.argv.slice(3);
rmSync(OUT_DIR, { recursive: true, force: true });
const failedRuns: string[] = [];
const failedTests = new Map<string, number>();
for (let i = 1; i <= runs; i++) {
  const { code, failures, ms } = await runOnce(i, extra);
  const time = `${(ms / 1000).toFixed(0)} s`;
  if (code === 0) {
    console.log(`run ${i}/${runs}: passed (${time})`);
    continue;
  }
  const titles = failures?.failed.map((f) => f.title) ?? [];
  for (const t of titles) failedTests.set(t, (failedTests.get(t) ?? 0) + 1);
  failedRuns.push(`run ${i}: ${titles.length > 0 ? titles.join('; ') : `exit ${code} (${failures?.status ?? 'no report'})`}`);
  console.log(`run ${i}/${runs}: FAILED (${time}, exit ${code}): ${titles.join('; ') || failures?.status || 'no report'}`);
  for (const f of failures?.failed ?? []) console.log(`    ${f.title}: ${f.status}\n      ${f.error.split('\n').join('\n      ')}`);
  console.log(`    output and traces: ${join(OUT_DIR, `run-${i}`)}`);
}
console.log(`\ne2e:repeat: ${runs - failedRuns.length} of ${runs} runs passed, ${failedRuns.length} failed`);
for (const [title, count] of failedTests) console.log(`  ${count}× ${title}`);
process.exit(failedRuns.length === 0 ? 0 : 1);

/**
 * The scale benchmark (`npm run bench:origin:scale`) runs and prints its table: a smoke at N=5 over HTTP/1.1,
 * paced and unpaced, and the reference server on two workers (`cluster`). Its figures are the benchmark's (README "Scale"), not this test's.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('npm run bench:origin:scale at N=5 prints a row per mode with every response and no error', () => {
  const dir = fileURLToPath(new URL('..', import.meta.url));
  const out = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'bench/scale.ts',
      '--viewers',
      '5',
      '--modes',
      'h1,h1-unpaced,cluster',
      '--segments',
      '1',
      '--segment-seconds',
      '1',
    ],
    {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  expect(out).toMatch(/^\| mode +\| N \| responses \| errors \| arrival\/rtp p5 \| p50 +\| p95 +\| >10% fast \| CPU s\/Gbit \|/m);
  for (const mode of ['h1', 'h1-unpaced', 'cluster']) {
    const row = new RegExp(`^\\| ${mode} +\\| 5 \\| 5 +\\| 0 +\\| (\\d+\\.\\d+) +\\|`, 'm').exec(out);
    expect(row, `${mode} row in:\n${out}`).not.toBeNull();
    expect(Number(row![1])).toBeGreaterThan(0);
  }
}, 150_000);

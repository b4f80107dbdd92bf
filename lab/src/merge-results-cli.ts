#!/usr/bin/env node
/**
 * `npm run bench:lab:merge -- --out DIR RESULTS_DIR…`: one report (report.md, plots, runs.csv,
 * summary.json) from the runs of several results folders, as if one bench had run them all
 * (merge-results.ts says what must agree and how runs are numbered). The runs stay in their folders.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { invocationDir } from './cli-options.js';
import { runMetrics, type RawRun } from './measurements.js';
import { mergeBenches, type ResultsFolder } from './merge-results.js';
import { writeResults } from './results.js';

function readFolder(dir: string): ResultsFolder {
  const summaryFile = join(dir, 'summary.json');
  const runsDir = join(dir, 'runs');
  if (!existsSync(summaryFile) || !existsSync(runsDir)) throw new Error(`${dir}: not a results folder (it needs summary.json and runs/)`);
  const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as Pick<ResultsFolder, 'config' | 'env'>;
  const runs = readdirSync(runsDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(runsDir, f), 'utf8')) as RawRun);
  return { dir, config: summary.config, env: summary.env, runs };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help || !values.out || positionals.length === 0) {
    console.log('usage: npm run bench:lab:merge -- --out DIR RESULTS_DIR…   (one report from the runs of several results folders)');
    if (!values.help) process.exitCode = 2;
    return;
  }
  // Relative to where npm run was typed, as the bench's own paths (npm runs the script in lab/).
  const cwd = invocationDir();
  const out = resolve(cwd, values.out);
  const folders = positionals.map((d) => resolve(cwd, d));
  if (folders.includes(out)) throw new Error('--out must be a new folder, not one of the folders merged');
  const merged = mergeBenches(folders.map(readFolder));
  mkdirSync(out, { recursive: true });
  const metrics = merged.runs.map(runMetrics);
  const report = await writeResults({
    dir: out,
    config: merged.config,
    env: merged.env,
    raw: merged.runs,
    metrics,
    preface: merged.preface,
    log: (l) => console.error(l),
  });
  console.log(report);
}

main().catch((err: Error) => {
  console.error(`bench:lab:merge: ${err.message}`);
  process.exit(1);
});

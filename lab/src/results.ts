/**
 * What a results folder holds besides runs/*.json: the plots, runs.csv, summary.json and report.md,
 * from the runs' raw records. One writer for the bench at its end and for a report merged from
 * several folders (merge-results.ts), so both say the same things the same way.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchConfig, Neighbour } from './config.js';
import { armPairs, checkFamilyTargets, familyCells } from './family-report.js';
import { checkFrontierTargets, frontierCells } from './frontier.js';
import { plotFrontiers } from './frontier-plot.js';
import type { RawRun, RunMetrics } from './measurements.js';
import { plotGameTimeline, plotNeighbours, plotTimeSeries, plotTraceFamilies, representativeRuns } from './plots.js';
import { metricsCsv, renderMarkdown, summarise, traceSummaries, type BenchEnvironment } from './report.js';

export interface ResultsInput {
  dir: string;
  config: BenchConfig;
  env: BenchEnvironment;
  raw: RawRun[];
  metrics: RunMetrics[];
  /** Lines before the report's own (a merged report says where its runs came from). */
  preface?: string[];
  log: (line: string) => void;
}

/** Writes the plots, runs.csv, summary.json and report.md into `dir`; returns the report's path. */
export async function writeResults(input: ResultsInput): Promise<string> {
  const { dir, config, env, raw, metrics } = input;
  const traced = env.traces !== undefined;
  mkdirSync(join(dir, 'plots'), { recursive: true });
  const plots: string[] = [];
  try {
    const reps = representativeRuns(raw, metrics, config.arms);
    if (reps.size) plots.push(await plotTimeSeries(reps, join(dir, 'plots')));
    plots.push(...(await plotNeighbours(raw, config.arms, join(dir, 'plots'))));
    if (config.neighbours.includes('game')) {
      const g = await plotGameTimeline(raw, metrics, config.arms, join(dir, 'plots'));
      if (g) plots.push(g);
    }
    if (traced) plots.push(...(await plotFrontiers(metrics, config.arms, env.topVideoKbps, join(dir, 'plots'))));
    if (traced) plots.push(...(await plotTraceFamilies(raw, metrics, config.arms, join(dir, 'plots'))));
  } catch (err) {
    input.log(`plots failed: ${(err as Error).message}`);
  }
  writeFileSync(join(dir, 'runs.csv'), metricsCsv(metrics));
  const neighbours: Array<Neighbour | 'all'> = ['all', ...config.neighbours];
  // The traces' parsed steps are in the trace files; the summary keeps their description (env.traces).
  const configOut = { ...config, traces: config.traces?.map((t) => t.id) };
  const cells = traced ? familyCells(metrics, config.arms) : [];
  const families = traced
    ? {
        cells,
        pairs: armPairs(cells),
        targets: checkFamilyTargets(cells, env.topVideoKbps),
        frontier: checkFrontierTargets(frontierCells(metrics), env.topVideoKbps),
      }
    : undefined;
  writeFileSync(
    join(dir, 'summary.json'),
    JSON.stringify(
      {
        config: configOut,
        env,
        summaries: summarise(metrics, config.arms, neighbours),
        ...(traced ? { traceSummaries: traceSummaries(metrics, config.arms), families } : {}),
        metrics,
      },
      null,
      2,
    ),
  );
  const reportPath = join(dir, 'report.md');
  const report = renderMarkdown({ config, env, metrics, plots });
  writeFileSync(reportPath, input.preface?.length ? `${input.preface.join('\n')}\n\n${report}` : report);
  return reportPath;
}

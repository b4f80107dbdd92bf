#!/usr/bin/env node
/**
 * `node dist/game-report.js RESULTS_DIR…`: the game neighbour's section (game/report.ts) and its
 * timeline plot, from the runs/*.json a bench wrote, for each folder given. For results written by a
 * bench that predates a change to the section, or to read several folders (e.g. both buffer targets)
 * in one go; a run's kept RTP log (runs/<run>.rtp.log) is read again. Writes RESULTS_DIR/game-report.md and plots/game-timeline.{svg,png}; prints the sections.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARMS, type Arm } from './config.js';
import { renderGameSection } from './game/report.js';
import { summariseLog } from './game/net-delay.js';
import { renderNetSection } from './game/net-report.js';
import { runMetrics, type RawRun } from './measurements.js';
import { plotGameTimeline } from './plots.js';

async function main(): Promise<void> {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) throw new Error('usage: node dist/game-report.js RESULTS_DIR…');
  for (const dir of dirs) {
    const runsDir = join(dir, 'runs');
    if (!existsSync(runsDir)) throw new Error(`${dir}: no runs/ folder`);
    const raw = readdirSync(runsDir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => {
        const r = JSON.parse(readFileSync(join(runsDir, f), 'utf8')) as RawRun;
        // The router's RTP log kept beside the run: its frames read again by today's net-delay.ts.
        const log = join(runsDir, f.replace(/\.json$/, '.rtp.log'));
        return existsSync(log) ? { ...r, gameNet: summariseLog(readFileSync(log, 'utf8')) } : r;
      });
    const metrics = raw.map(runMetrics);
    const arms = ARMS.filter((a) => raw.some((r) => r.arm === a)) as Arm[];
    const summary = existsSync(join(dir, 'summary.json'))
      ? (
          JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as {
            config?: { bufferSeconds?: number; rateMbps?: number; durationSeconds?: number };
          }
        ).config
      : undefined;
    const head = `# Game neighbour: ${dir}\n\nLink ${summary?.rateMbps ?? '?'} Mbit/s, buffer target ${summary?.bufferSeconds ?? '?'} s, sessions of ${summary?.durationSeconds ?? '?'} s; ${raw.length} runs.\n`;
    const plot = await plotGameTimeline(raw, metrics, arms, join(dir, 'plots'));
    const text = [
      head,
      ...renderGameSection(metrics, arms),
      ...renderNetSection(metrics, arms),
      ...(plot ? [`![${plot}](plots/${plot}.png)`, ''] : []),
    ].join('\n');
    writeFileSync(join(dir, 'game-report.md'), text);
    console.log(text);
  }
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});

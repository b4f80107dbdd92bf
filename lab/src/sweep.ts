#!/usr/bin/env node
/**
 * `npm run bench:lab:sweep -- [flags]` (issue 17): the bench at each link multiple of the top
 * bitrate, one `node dist/cli.js` invocation each (its own process, namespaces and report), then
 * one report, plots and sweep.json over all of them in results/sweep-<timestamp>/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { topVideoKbps } from './bench.js';
import { parseCliArgs } from './cli-options.js';
import type { BenchConfig } from './config.js';
import { ensureMedia, manifestFile } from './media.js';
import { LAB_DIR } from './scripts.js';
import { benchArgs, linkFor, parseSweepArgs, SWEEP_HELP, type SweepArgs } from './sweep-args.js';
import { plotSweep } from './sweep-plots.js';
import { aggregatePoint, checkTargets, multipleText, renderSweepMarkdown, runsFromCsv, type SweepPoint } from './sweep-report.js';

const CLI = fileURLToPath(new URL('./cli.js', import.meta.url));
const REPO_DIR = join(LAB_DIR, '..');

function timestamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').replace('Z', '');
}

/** The bench's own parse of one invocation's flags: the sweep refuses what the bench would, before any run. */
function benchConfig(args: SweepArgs, link: { rateMbps: number; udpMbps: number }, dir: string): BenchConfig {
  const parsed = parseCliArgs(benchArgs(args, link, dir));
  if (parsed.help) throw new Error('--help goes to the sweep itself (npm run bench:lab:sweep -- --help)');
  // The sweep's tables group runs by arm only: one buffer target per sweep.
  if (parsed.config.bufferTargets)
    throw new Error(`--buffer-seconds ${parsed.config.bufferTargets.join(',')}: one buffer target per sweep (run one sweep per target)`);
  return parsed.config;
}

let child: ChildProcess | undefined;

/** Runs one bench invocation in its own process group, so a Ctrl-C reaches it once, forwarded by the sweep. */
function runBench(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolvePromise, reject) => {
    // Its stdout (its report's path) goes to stderr too: the sweep's stdout is its own report's path.
    const c = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 2, 2], detached: true });
    child = c;
    c.once('error', reject);
    c.once('exit', (code, signal) => {
      child = undefined;
      resolvePromise({ code, signal });
    });
  });
}

/** The invocation's result folder: the one sub-folder of its own results dir with a runs.csv. */
function resultFolder(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const found = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'runs.csv')));
  return found.length ? join(dir, found.sort((a, b) => a.name.localeCompare(b.name)).at(-1)!.name) : undefined;
}

async function main(): Promise<number> {
  const parsed = parseSweepArgs(process.argv.slice(2));
  if (parsed.help) {
    console.log(SWEEP_HELP);
    return 0;
  }
  const args = parsed.args;
  const startedAt = new Date();
  const sweepDir = join(args.resultsDir, `sweep-${timestamp()}`);
  // Checked once with the bench's parser (a placeholder link): unknown flags, bad values, media paths.
  const base = benchConfig(args, { rateMbps: 40, udpMbps: 5 }, sweepDir);
  await ensureMedia(base.mediaDir, base.manifestPath, base.contentSeconds);
  // The same number the bench puts in env.topVideoKbps (and its flat cap comes from).
  const mpd = manifestFile(base.mediaDir, base.manifestPath);
  const topKbps = topVideoKbps(mpd);
  const links = args.multiples.map((m) => linkFor(m, topKbps));
  for (const link of links) benchConfig(args, link, sweepDir);

  const perInvocation = args.arms.length * base.runs;
  console.error(
    `rate sweep: top video ${topKbps} kbps; links ${links.map((l) => `${multipleText(l.multiple)} = ${l.rateMbps} Mbit/s`).join(', ')}; ` +
      `${links.length} invocations × ${perInvocation} runs of ${base.durationSeconds} s: about ${Math.ceil((links.length * (perInvocation * (base.durationSeconds + 10) + 40)) / 60)} min`,
  );
  mkdirSync(join(sweepDir, 'plots'), { recursive: true });

  const points: SweepPoint[] = [];
  let failed = false;
  const write = async (): Promise<string> => {
    const plots = await plotSweep(points, args.arms, topKbps, join(sweepDir, 'plots')).catch((err: Error) => {
      console.error(`sweep plots failed: ${err.message}`);
      return [];
    });
    const common = {
      startedAt: startedAt.toISOString(),
      wallSeconds: (Date.now() - startedAt.getTime()) / 1000,
      topVideoKbps: topKbps,
      topSource: relative(REPO_DIR, mpd),
      arms: args.arms,
      judgedArm: args.judgedArm,
      runs: base.runs,
      durationSeconds: base.durationSeconds,
      seed: base.seed,
      queueBytes: base.queueBytes,
      passthrough: args.passthrough,
      ...(args.neighbour ? { neighbour: args.neighbour } : {}),
      points,
      plots,
    };
    writeFileSync(
      join(sweepDir, 'sweep.json'),
      JSON.stringify(
        {
          ...common,
          multiples: args.multiples,
          tables: points.map((p) => aggregatePoint(p, args.arms)),
          targets: checkTargets(points, args.judgedArm),
        },
        null,
        2,
      ),
    );
    const report = join(sweepDir, 'report.md');
    writeFileSync(report, renderSweepMarkdown(common));
    return report;
  };

  let stopped: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    stopped = signal;
    console.error(`\n${signal}: stopping the running invocation (it removes its namespaces), then writing the sweep report`);
    child?.kill(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  for (const link of links) {
    if (stopped) break;
    const name = `x${Number(link.multiple.toFixed(3))}`;
    const dir = join(sweepDir, name);
    console.error(`\n— ${multipleText(link.multiple)} top: ${link.rateMbps} Mbit/s, UDP neighbour ${link.udpMbps} Mbit/s → ${dir}`);
    const { code, signal } = await runBench(benchArgs(args, link, dir));
    const folder = resultFolder(dir);
    const point: SweepPoint = { ...link, rows: [], failedRuns: 0, ...(folder ? { folder: relative(sweepDir, folder) } : {}) };
    if (folder) {
      point.rows = runsFromCsv(readFileSync(join(folder, 'runs.csv'), 'utf8'));
      const env = (
        JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8')) as { env?: { failedRuns?: unknown[]; topVideoKbps?: number } }
      ).env;
      point.failedRuns = env?.failedRuns?.length ?? 0;
      if (env?.topVideoKbps !== undefined && env.topVideoKbps !== topKbps)
        point.error = `the bench played a ${env.topVideoKbps} kbps top, not ${topKbps}`;
    }
    if (code !== 0) {
      // Whatever stopped this invocation (no root, a protocol mismatch, a signal) would stop the next ones too.
      point.error = signal ? `stopped by ${signal}` : `bench:lab exited with ${code}`;
      failed = true;
    }
    points.push(point);
    const report = await write();
    console.error(`sweep report so far: ${report}`);
    if (failed) break;
  }
  const report = await write();
  console.log(report);
  if (stopped) return stopped === 'SIGINT' ? 130 : 143;
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`bench:lab:sweep: ${err.message}`);
    process.exit(1);
  },
);

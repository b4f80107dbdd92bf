#!/usr/bin/env node
/**
 * `npm run bench:lab -- [flags]`: the paper's neighbour experiment (Section 6) on this machine.
 */
import { benchRunCount, runBench } from './bench.js';
import { HELP, parseCliArgs } from './cli-options.js';
import { ensureMedia } from './media.js';

async function main(): Promise<void> {
  const parsed = parseCliArgs(process.argv.slice(2));
  if (parsed.help) {
    console.log(HELP);
    return;
  }
  const { config } = parsed;
  await ensureMedia(config.mediaDir, config.manifestPath, config.contentSeconds);
  const runs = benchRunCount(config);
  console.error(`${runs} runs of ${config.durationSeconds} s: about ${Math.ceil((runs * (config.durationSeconds + 10)) / 60)} min`);
  const result = await runBench(config);
  console.log(result.reportPath);
}

main().catch((err: Error) => {
  console.error(`bench:lab: ${err.message}`);
  process.exit(1);
});

/**
 * The origin under benchmark, in its own process so its CPU time is its own: `process.cpuUsage()` here
 * counts only the server (the clients run in the parent). Speaks over the fork IPC channel:
 * sends `{ url }` once listening, answers `'cpu'` with its cpuUsage, exits on `'close'`.
 */
import { isPacingMode } from '../src/pacing-mechanism.js';
import { startTestOrigin } from '../test/helpers.js';

export type BenchServerMessage = { url: string } | { cpu: NodeJS.CpuUsage };

const [mediaDir, mode] = process.argv.slice(2);
if (!mediaDir || !isPacingMode(mode) || !process.send) throw new Error('usage: fork(bench-server.ts, [mediaDir, pacingMode])');
const send = process.send.bind(process);
const origin = await startTestOrigin(mediaDir, { pacing: mode });
process.on('message', (msg) => {
  if (msg === 'cpu') send({ cpu: process.cpuUsage() } satisfies BenchServerMessage);
  else if (msg === 'close') void origin.close().finally(() => process.exit(0));
});
send({ url: origin.url } satisfies BenchServerMessage);

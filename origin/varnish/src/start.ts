#!/usr/bin/env node
/**
 * `npm run start:varnish`: the demo through the Varnish edge. Starts the reference origin (demo site +
 * test ladder, generated on first use) on a free loopback port and a private varnishd with sammy.vcl in
 * front of it, on http://localhost:6081 by default. Ctrl-C stops both.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_MANIFEST_PATH } from '@sammy/test-content/media-paths';
import { DEFAULT_MEDIA_ROOT, ensureContent } from '@sammy/test-content';
import { startOrigin } from '@sammy/origin-server';
import { startVarnish } from './varnishd.js';

const HELP = `Usage: npm run start:varnish -- [options]

Serves the Sammy demo through Varnish: the reference origin on a free loopback port, varnishd with
origin/varnish/sammy.vcl in front of it (kernel pacing of each client socket at its CMCD rtp).

Options:
  --port <n>        Varnish's port (default 6081)
  --origin-port <n> the origin's port (default: a free one)
  --max-pace <kbps> SAMMY_MAX_PACE_KBPS (default in the VCL: 1000000)
  -h, --help        this text
`;

let values;
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string', default: '6081' },
      'origin-port': { type: 'string', default: '0' },
      'max-pace': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (err) {
  console.error(`start:varnish: ${(err as Error).message}\n\n${HELP}`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const port = Number(values.port);
const originPort = Number(values['origin-port']);
const maxPace = values['max-pace'] === undefined ? undefined : Number(values['max-pace']);
if (
  !Number.isInteger(port) ||
  port <= 0 ||
  !Number.isInteger(originPort) ||
  originPort < 0 ||
  (maxPace !== undefined && !Number.isInteger(maxPace))
) {
  console.error(`start:varnish: --port, --origin-port and --max-pace take integers\n\n${HELP}`);
  process.exit(2);
}

await ensureContent();
// The edge paces the viewer's socket; the origin behind it sees no rtp (the VCL strips CMCD), so it does not pace.
const origin = await startOrigin({ port: originPort, mediaDir: DEFAULT_MEDIA_ROOT });
let varnish;
try {
  varnish = await startVarnish({ backendPort: origin.port, port, maxPaceKbps: maxPace });
} catch (err) {
  await origin.close();
  console.error(`start:varnish: ${(err as Error).message}`);
  process.exit(1);
}
const shown = varnish.url.replace('127.0.0.1', 'localhost');
console.log(`start:varnish: origin on ${origin.url}, Varnish (pid ${varnish.pid}) on ${shown}/`);
console.log(`start:varnish: demo at ${shown}/, test ladder at ${shown}${DEFAULT_MANIFEST_PATH}`);

let stopping = false;
const stop = async () => {
  if (stopping) process.exit(130);
  stopping = true;
  await varnish.close();
  await origin.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

#!/usr/bin/env node
/** `npm start`: generate the test ladder on first use, then serve the demo site and media on http://localhost:8080. */
import { parseArgs } from 'node:util';
import {
  isCongestionControl,
  CONGESTION_CONTROLS,
  DEFAULT_MANIFEST_PATH,
  DEFAULT_MAX_PACE_KBPS,
  DEFAULT_MIN_PACE_KBPS,
  RECORD_EVENTS_PATH,
  RECORDS_PATH,
  type CongestionControl,
} from 'sammy-pacing-protocol';
import { DEFAULT_MEDIA_ROOT, ensureContent } from '@sammy/test-content';
import { isPacingMode, PACING_MODES, type PacingMode } from 'sammy-pacing-express';
import { DEFAULT_HOST, DEFAULT_PORT, startOrigin } from './server.js';

const HELP = `Usage: sammy-origin [options]

Serves the Sammy demo site at / and DASH media at /media/, pacing each response at its CMCD rtp.

Options:
  --port <n>          TCP port (default: $PORT or ${DEFAULT_PORT}; 0 = any free port)
  --host <addr>       listen address (default: ${DEFAULT_HOST})
  --media-dir <dir>   serve your own DASH content at /media/ (default: $SAMMY_MEDIA_DIR or the
                      generated test ladder, ${DEFAULT_MANIFEST_PATH})
  --pacing <mode>     ${PACING_MODES.join(' | ')} (default: auto = kernel where available)
  --cc <name>         congestion control per connection: ${CONGESTION_CONTROLS.join(' | ')} (default: system's)
  --no-client-cc      ignore the Sammy-Congestion-Control request header (honoured by
                      default here: the demo page's congestion-control control uses it)
  --records           publish delivery records (${RECORDS_PATH}, ${RECORD_EVENTS_PATH}) for the
                      demo page: every viewer's paths and timings, to anyone who can connect
  --no-records        do not (default: on when --host is a loopback address, off otherwise)
  --min-pace <kbps>   lowest pace applied (default ${DEFAULT_MIN_PACE_KBPS})
  --max-pace <kbps>   highest pace applied (default ${DEFAULT_MAX_PACE_KBPS})
  -h, --help          this text
`;

function fail(message: string): never {
  console.error(`sammy-origin: ${message}\n\n${HELP}`);
  process.exit(2);
}

function numberOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) fail(`--${name} must be a non-negative number, got ${JSON.stringify(value)}`);
  return n;
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'media-dir': { type: 'string' },
      pacing: { type: 'string' },
      cc: { type: 'string' },
      'no-client-cc': { type: 'boolean' },
      records: { type: 'boolean' },
      'no-records': { type: 'boolean' },
      'min-pace': { type: 'string' },
      'max-pace': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (err) {
  fail((err as Error).message);
}
const { values } = parsed;
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (values.pacing !== undefined && !isPacingMode(values.pacing)) fail(`unknown --pacing ${JSON.stringify(values.pacing)}`);
if (values.cc !== undefined && !isCongestionControl(values.cc)) fail(`unknown --cc ${JSON.stringify(values.cc)}`);
if (values.records && values['no-records']) fail('--records and --no-records contradict each other');
const port = numberOption('port', values.port ?? process.env.PORT) ?? DEFAULT_PORT;
const mediaDir = values['media-dir'] ?? process.env.SAMMY_MEDIA_DIR;

if (mediaDir === undefined) await ensureContent();

const origin = await startOrigin({
  port,
  host: values.host,
  mediaDir: mediaDir ?? DEFAULT_MEDIA_ROOT,
  pacing: values.pacing as PacingMode | undefined,
  congestionControl: values.cc as CongestionControl | undefined,
  allowClientCongestionControl: !values['no-client-cc'],
  serveRecords: values.records ? true : values['no-records'] ? false : undefined,
  minPaceKbps: numberOption('min-pace', values['min-pace']),
  maxPaceKbps: numberOption('max-pace', values['max-pace']),
});

const shown = origin.url.replace('127.0.0.1', 'localhost');
console.log(`sammy-origin: serving on ${shown}/`);
if (mediaDir === undefined) console.log(`sammy-origin: test ladder at ${shown}${DEFAULT_MANIFEST_PATH}`);
else console.log(`sammy-origin: media from ${mediaDir} at ${shown}/media/`);
console.log(origin.records ? `sammy-origin: delivery records at ${shown}${RECORDS_PATH} (--no-records to turn off)` : 'sammy-origin: delivery records not published (--records to publish them)');

let stopping = false;
const stop = (signal: string) => {
  if (stopping) process.exit(130); // a second Ctrl-C: leave now
  stopping = true;
  console.log(`\nsammy-origin: ${signal}, closing`);
  origin.close().then(
    () => process.exit(0),
    (err: Error) => {
      console.error(`sammy-origin: ${err.message}`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

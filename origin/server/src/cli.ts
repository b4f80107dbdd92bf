#!/usr/bin/env node
/**
 * `npm start`: generate the test ladder on first use, then serve the demo site and media on
 * https://localhost:8443 (HTTP/2 and HTTP/1.1, a development certificate generated on first use) and
 * on http://localhost:8080 (HTTP/1.1: the quick start, no certificate to trust).
 */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import {
  isCongestionControl,
  CONGESTION_CONTROLS,
  DEFAULT_MAX_PACE_KBPS,
  DEFAULT_MIN_PACE_KBPS,
  RECORD_EVENTS_PATH,
  RECORDS_PATH,
  type CongestionControl,
} from 'sammy-pacing-protocol';
import { DEFAULT_MANIFEST_PATH } from '@sammy/test-content/media-paths';
import { DEFAULT_MEDIA_ROOT, ensureContent } from '@sammy/test-content';
import { DeliveryRecordLog, isLoopbackHost, isPacingMode, METRICS_PATH, PACING_MODES, type PacingMode } from 'sammy-pacing-express';
import { clusterMetricsRegistry, joinClusterRecords, parseWorkers, reportStarted, runPrimary } from './cluster.js';
import { originMetricsRegistry } from './metrics-registry.js';
import { certificateFromFiles, devCertificate, type TlsCredentials } from './dev-certificate.js';
import { DEFAULT_MAX_CONNECTIONS_PER_CLIENT } from './client-limits.js';
import { DEFAULT_HOST, DEFAULT_HTTPS_PORT, DEFAULT_PORT, startOrigin, type RunningOrigin, type StartOriginOptions } from './server.js';

const HELP = `Usage: sammy-origin [options]

Serves the Sammy demo site at / and DASH media at /media/, pacing each response at its CMCD rtp,
over HTTPS (HTTP/2 and HTTP/1.1) and plain HTTP (HTTP/1.1).

Through npm at the repository root the options follow \`--\`: npm start -- --port 8081 --https-port 8444

Options:
  --https-port <n>    HTTPS port, HTTP/2 + HTTP/1.1 (default: $HTTPS_PORT or ${DEFAULT_HTTPS_PORT}; 0 = any free port)
  --port <n>          plain HTTP port, HTTP/1.1 (default: $PORT or ${DEFAULT_PORT}; 0 = any free port)
  --no-https          plain HTTP only
  --no-http           HTTPS only
  --cert <file>       PEM certificate for HTTPS (with --key); default: a development certificate
  --key <file>        its PEM private key     for localhost, generated once into .cache/tls/
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
  --no-metrics        no Prometheus metrics (default: served at ${METRICS_PATH} under this server's
                      own host names: loopback's and the listen address)
  --min-pace <kbps>   lowest pace applied (default ${DEFAULT_MIN_PACE_KBPS})
  --max-pace <kbps>   highest pace applied (default ${DEFAULT_MAX_PACE_KBPS})
  --max-conns-per-client <n>  connections one address may hold per listener; more are refused
                      (default ${DEFAULT_MAX_CONNECTIONS_PER_CLIENT}; raise it behind a carrier-grade NAT; per worker)
  --workers <n|auto>  serve from n processes sharing the ports (node:cluster; auto = one per core,
                      ${availableParallelism()} here): /metrics sums them all, every worker's records show every
                      response, a worker that dies is replaced (default 1: one process, no cluster)
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
      'https-port': { type: 'string' },
      'no-https': { type: 'boolean' },
      'no-http': { type: 'boolean' },
      cert: { type: 'string' },
      key: { type: 'string' },
      host: { type: 'string' },
      'media-dir': { type: 'string' },
      pacing: { type: 'string' },
      cc: { type: 'string' },
      'no-client-cc': { type: 'boolean' },
      records: { type: 'boolean' },
      'no-records': { type: 'boolean' },
      'no-metrics': { type: 'boolean' },
      'min-pace': { type: 'string' },
      'max-pace': { type: 'string' },
      'max-conns-per-client': { type: 'string' },
      workers: { type: 'string' },
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
if (values['no-http'] && values['no-https']) fail('--no-http and --no-https leave nothing to serve');
if ((values.cert === undefined) !== (values.key === undefined)) fail('--cert and --key go together');
const port = numberOption('port', values.port ?? process.env.PORT) ?? DEFAULT_PORT;
const httpsPort = numberOption('https-port', values['https-port'] ?? process.env.HTTPS_PORT) ?? DEFAULT_HTTPS_PORT;
const mediaDir = values['media-dir'] ?? process.env.SAMMY_MEDIA_DIR;
const maxConnectionsPerClient = numberOption('max-conns-per-client', values['max-conns-per-client']);
if (maxConnectionsPerClient !== undefined && (!Number.isInteger(maxConnectionsPerClient) || maxConnectionsPerClient < 1))
  fail('--max-conns-per-client must be a positive integer');

const workers = values.workers === undefined ? 1 : parseWorkers(values.workers, availableParallelism());
if (workers === undefined) fail(`--workers must be a positive integer or auto, got ${JSON.stringify(values.workers)}`);
/** One of a cluster's workers: it hands its output to the primary, which prints it once. */
const inCluster = workers > 1;

// The primary prepares what every worker reads (the test ladder, a development certificate) once, then forks them.
if (mediaDir === undefined && !cluster.isWorker) await ensureContent();
let tls: TlsCredentials | undefined;
if (!values['no-https']) {
  try {
    tls = values.cert !== undefined ? certificateFromFiles(values.cert, values.key!) : await devCertificate();
  } catch (err) {
    fail(`cannot read the certificate: ${(err as Error).message}`);
  }
}
if (inCluster && cluster.isPrimary) {
  runPrimary({ workers });
} else {
  await serve();
}

async function serve(): Promise<void> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const host = values.host ?? DEFAULT_HOST;
  const serveRecords = values.records ? true : values['no-records'] ? false : undefined;
  const localMetrics = values['no-metrics'] ? undefined : originMetricsRegistry();

  const common: StartOriginOptions = {
    host: values.host,
    mediaDir: mediaDir ?? DEFAULT_MEDIA_ROOT,
    pacing: values.pacing as PacingMode | undefined,
    congestionControl: values.cc as CongestionControl | undefined,
    allowClientCongestionControl: !values['no-client-cc'],
    serveRecords,
    minPaceKbps: numberOption('min-pace', values['min-pace']),
    maxPaceKbps: numberOption('max-pace', values['max-pace']),
    maxConnectionsPerClient,
    // One log for both listeners: the demo page sees every response, whichever protocol carried it.
    // In a cluster each worker's log also holds the other workers' records, so that whichever worker answers shows all.
    records: inCluster && (serveRecords ?? isLoopbackHost(host)) ? await joinClusterRecords() : new DeliveryRecordLog(),
    // One registry likewise: /metrics on either port counts both (in a cluster: every worker's, summed).
    metrics: localMetrics ?? false,
    servedMetrics: inCluster && localMetrics ? clusterMetricsRegistry(localMetrics) : undefined,
  };
  /** A listener that could not bind, and how a user picks another port for it. */
  interface Unbound {
    port: number;
    label: string;
    env: string;
    flag: string;
    why: string;
  }
  const origins: RunningOrigin[] = [];
  const unbound: Unbound[] = [];
  const listeners = [
    ...(tls ? [{ options: { ...common, port: httpsPort, tls }, label: 'HTTPS', env: 'HTTPS_PORT', flag: '--https-port' }] : []),
    ...(values['no-http'] ? [] : [{ options: { ...common, port }, label: 'HTTP', env: 'PORT', flag: '--port' }]),
  ];
  for (const { options, label, env, flag } of listeners) {
    try {
      origins.push(await startOrigin(options));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // A busy or forbidden port is the user's to fix: say how, not a stack trace; anything else is a bug.
      if (code !== 'EADDRINUSE' && code !== 'EACCES') throw err;
      unbound.push({ port: options.port, label, env, flag, why: code === 'EADDRINUSE' ? 'in use' : 'not allowed' });
    }
  }
  if (unbound.length > 0) {
    const many = unbound.length > 1;
    const ports = unbound.map((u) => `${u.port} (${u.label})`).join(' and ');
    const why = unbound.every((u) => u.why === 'in use') ? 'in use' : 'in use or not allowed';
    const env = unbound.map((u) => `${u.env}=${u.port + 1}`).join(' ');
    const flags = unbound.map((u) => `${u.flag} ${u.port + 1}`).join(' ');
    stderr.push(
      `sammy-origin: ${many ? 'ports' : 'port'} ${ports} ${many ? 'are' : 'is'} ${why}; choose ${many ? 'others' : 'another'} with ${env} npm start, or npm start -- ${flags}`,
    );
  }
  if (origins.length === 0) {
    if (inCluster) reportStarted({ stdout, stderr, listening: false });
    else for (const line of stderr) console.error(line);
    process.exit(1);
  }

  for (const origin of origins) {
    const shown = origin.url.replace('127.0.0.1', 'localhost');
    stdout.push(`sammy-origin: serving on ${shown}/ (${origin.protocol === 'https' ? 'HTTP/2 and HTTP/1.1 over TLS' : 'HTTP/1.1'})`);
  }
  const first = origins[0]!;
  const shown = first.url.replace('127.0.0.1', 'localhost');
  // Only for an HTTPS listener that started, and curl pointed at it (a certificate means nothing to http://).
  const secure = origins.find((o) => o.protocol === 'https');
  if (tls && secure && values.cert === undefined) {
    stdout.push(`sammy-origin: the HTTPS certificate is a development one for localhost (${tls.certPath}); to trust it:
    Chromium/Chrome: start it with --ignore-certificate-errors-spki-list=${tls.spkiHash} (trusts this key only)
    or import ${tls.certPath} as a trusted authority (Firefox: Settings → Certificates → Authorities);
    curl --cacert ${tls.certPath} ${secure.url}/`);
  }
  if (mediaDir === undefined) stdout.push(`sammy-origin: test ladder at ${shown}${DEFAULT_MANIFEST_PATH}`);
  else stdout.push(`sammy-origin: media from ${mediaDir} at ${shown}/media/`);
  if (first.pacing.metrics) stdout.push(`sammy-origin: Prometheus metrics at ${shown}${METRICS_PATH} (--no-metrics to turn off)`);
  stdout.push(
    first.records
      ? `sammy-origin: delivery records at ${shown}${RECORDS_PATH} (--no-records to turn off)`
      : 'sammy-origin: delivery records not published (--records to publish them)',
  );

  let stopping = false;
  const stop = (signal: string) => {
    // A second Ctrl-C: leave now (a worker leaves when the primary says, once).
    if (stopping) {
      if (!inCluster) process.exit(130);
      return;
    }
    stopping = true;
    if (!inCluster) console.log(`\nsammy-origin: ${signal}, closing`);
    Promise.all(origins.map((o) => o.close())).then(
      () => process.exit(0),
      (err: Error) => {
        console.error(`sammy-origin: ${err.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  if (inCluster) {
    reportStarted({ stdout, stderr, listening: true });
    // The primary gone (killed): close rather than serve on unsupervised.
    process.on('disconnect', () => stop('primary gone'));
  } else {
    for (const line of stdout) console.log(line);
    for (const line of stderr) console.error(line);
  }
}

/**
 * Deploys main.vcl to a Fastly VCL service with the Fastly CLI from @fastly/cli:
 * clone the active version, upload main.vcl as the main custom VCL, create or update the
 * backend, validate, activate. `--dry-run` prints the commands and runs none of them.
 *
 *   npm run deploy:fastly -- --backend-host origin.example.com [--backend-port 8080] [--dry-run]
 *
 * FASTLY_API_TOKEN stays in the environment (the CLI reads it there; a flag would land in
 * shell history and `ps`). See fastly/README.md, "Deploy to Fastly".
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const VCL_PATH = fileURLToPath(new URL('./main.vcl', import.meta.url));
const API = 'https://api.fastly.com';
/** The Express origin (`npm start`) listens here, over plain HTTP: the default backend. */
const EXPRESS_ORIGIN_PORT = 8080;

const USAGE = `Usage: npm run deploy:fastly -- [options]

  --dry-run               print the Fastly CLI commands, run nothing
  --service-id <id>       Fastly service (default: $FASTLY_SERVICE_ID)
  --backend-host <host>   origin serving /media/... (default: $SAMMY_BACKEND_HOST)
  --backend-port <port>   default: $SAMMY_BACKEND_PORT, else 8080 (the Express origin's port)
  --backend-tls           reach the backend over TLS (default when the port is 443)
  --no-backend-tls        reach the backend over plain HTTP (default for other ports)
  --backend-name <name>   default: sammy_origin
  --vcl-name <name>       default: sammy_main

Environment: FASTLY_API_TOKEN (required unless --dry-run).`;

class UsageError extends Error {}

interface DeployOptions {
  dryRun: boolean;
  serviceId: string | undefined;
  backendHost: string | undefined;
  backendPort: number;
  backendTls: boolean;
  backendName: string;
  vclName: string;
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): DeployOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'dry-run': { type: 'boolean', default: false },
      'service-id': { type: 'string' },
      'backend-host': { type: 'string' },
      'backend-port': { type: 'string' },
      'backend-tls': { type: 'boolean' },
      'no-backend-tls': { type: 'boolean' },
      'backend-name': { type: 'string', default: 'sammy_origin' },
      'vcl-name': { type: 'string', default: 'sammy_main' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const portText = values['backend-port'] ?? env.SAMMY_BACKEND_PORT ?? String(EXPRESS_ORIGIN_PORT);
  const backendPort = Number(portText);
  if (!Number.isInteger(backendPort) || backendPort < 1 || backendPort > 65535) {
    throw new UsageError(`--backend-port must be a TCP port number, got "${portText}"`);
  }
  if (values['backend-tls'] && values['no-backend-tls']) {
    throw new UsageError('--backend-tls and --no-backend-tls contradict each other');
  }
  const backendHost = values['backend-host'] ?? env.SAMMY_BACKEND_HOST;
  // The CLI wants a bare host name or address: a URL here is a common slip.
  if (backendHost !== undefined && !/^[A-Za-z0-9.:-]+$/.test(backendHost)) {
    throw new UsageError(`--backend-host must be a host name or IP address (no scheme or path), got "${backendHost}"`);
  }
  const serviceId = values['service-id'] ?? env.FASTLY_SERVICE_ID;
  if (serviceId !== undefined && !/^[A-Za-z0-9]+$/.test(serviceId)) {
    throw new UsageError(`the service id must be alphanumeric, got "${serviceId}"`);
  }
  return {
    dryRun: values['dry-run'],
    serviceId: serviceId || undefined,
    backendHost: backendHost || undefined,
    backendPort,
    backendTls: values['backend-tls'] ?? (values['no-backend-tls'] ? false : backendPort === 443),
    backendName: values['backend-name'],
    vclName: values['vcl-name'],
  };
}

/** One step of the plan: a Fastly CLI call, or the API's validate call (the CLI has none). */
interface CliStep {
  kind: 'cli';
  args: string[];
}
interface ValidateStep {
  kind: 'validate';
  url: string;
}
type Step = CliStep | ValidateStep;

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

function render(step: Step): string {
  return step.kind === 'cli'
    ? ['fastly', ...step.args].map(shellQuote).join(' ')
    : `GET ${step.url}  (header Fastly-Key: $FASTLY_API_TOKEN)`;
}

/** Builds every command of the deploy; `version` is the cloned version (a placeholder in the dry run). */
function plan(o: DeployOptions, serviceId: string, backendHost: string, version: string) {
  const common = [`--service-id=${serviceId}`, `--version=${version}`, '--non-interactive'];
  const backendFlags = [
    `--address=${backendHost}`,
    `--port=${o.backendPort}`,
    // The origin sees its own name in Host, as if it were reached directly.
    `--override-host=${backendHost}`,
    ...(o.backendTls ? ['--use-ssl', '--ssl-check-cert', `--ssl-cert-hostname=${backendHost}`, `--ssl-sni-hostname=${backendHost}`] : []),
  ];
  const cli = (...args: string[]): CliStep => ({ kind: 'cli', args });
  const validate: ValidateStep = { kind: 'validate', url: `${API}/service/${serviceId}/version/${version}/validate` };
  return {
    clone: cli('service', 'version', 'clone', `--service-id=${serviceId}`, '--version=active', '--json', '--non-interactive'),
    listVcl: cli('service', 'vcl', 'custom', 'list', ...common, '--json'),
    createVcl: cli('service', 'vcl', 'custom', 'create', ...common, `--name=${o.vclName}`, '--main', `--content=${VCL_PATH}`),
    updateVcl: cli('service', 'vcl', 'custom', 'update', ...common, `--name=${o.vclName}`, `--content=${VCL_PATH}`),
    listBackends: cli('service', 'backend', 'list', ...common, '--json'),
    createBackend: cli('service', 'backend', 'create', ...common, `--name=${o.backendName}`, ...backendFlags),
    updateBackend: cli('service', 'backend', 'update', ...common, `--name=${o.backendName}`, ...backendFlags),
    validate,
    activate: cli('service', 'version', 'activate', ...common),
  };
}

function printDryRun(o: DeployOptions): void {
  const serviceId = o.serviceId ?? '<FASTLY_SERVICE_ID>';
  const host = o.backendHost ?? '<backend-host>';
  const p = plan(o, serviceId, host, '<N>');
  const out = [
    '# Dry run: these are the commands `npm run deploy:fastly` would run; none was run.',
    '# The CLI takes the token from FASTLY_API_TOKEN. <N> is the version number that step 1 prints.',
    '# 1. Clone the active version.',
    render(p.clone),
    `# 2. Upload ${VCL_PATH} as the main custom VCL: update it if the clone already has a VCL named ${o.vclName}, else create it.`,
    render(p.listVcl),
    render(p.updateVcl),
    render(p.createVcl),
    `# 3. Point backend ${o.backendName} at the origin: update it if the clone has it, else create it.`,
    render(p.listBackends),
    render(p.updateBackend),
    render(p.createBackend),
    '# 4. Validate the version (the Fastly CLI has no validate command: deploy.ts calls the API).',
    render(p.validate),
    '# 5. Activate it.',
    render(p.activate),
  ];
  console.log(out.join('\n'));
}

function namesIn(json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed)) throw new Error(`expected a JSON list, got: ${json.slice(0, 200)}`);
  return parsed.map((item: Record<string, unknown>) => String(item.Name ?? item.name));
}

async function deploy(o: DeployOptions, token: string, serviceId: string, backendHost: string): Promise<void> {
  // Imported here so a dry run works where the CLI's platform package is missing.
  const fastlyBin = (await import('@fastly/cli')).default;

  const run = (step: CliStep): string => {
    console.log(`$ ${render(step)}`);
    const r = spawnSync(fastlyBin, step.args, { encoding: 'utf8', env: process.env });
    if (r.error) throw new Error(`could not start the Fastly CLI (${fastlyBin}): ${r.error.message}`);
    if (r.status !== 0) {
      throw new Error(`fastly ${step.args.slice(0, 4).join(' ')} failed (exit ${r.status}):\n${r.stderr || r.stdout}`);
    }
    return r.stdout;
  };

  const cloneOut = run(plan(o, serviceId, backendHost, '0').clone);
  const cloned: Record<string, unknown> = JSON.parse(cloneOut);
  const version = String(cloned.Number ?? cloned.number ?? '');
  if (!/^[0-9]+$/.test(version)) throw new Error(`could not read the cloned version number from: ${cloneOut}`);
  console.log(`# cloned version ${version}`);
  const p = plan(o, serviceId, backendHost, version);
  try {
    const vcls = namesIn(run(p.listVcl));
    run(vcls.includes(o.vclName) ? p.updateVcl : p.createVcl);

    const backends = namesIn(run(p.listBackends));
    run(backends.includes(o.backendName) ? p.updateBackend : p.createBackend);
    const others = backends.filter((b) => b !== o.backendName);
    if (others.length > 0) {
      console.warn(`# note: the service also has backend(s) ${others.join(', ')}; #FASTLY recv picks the default one`);
    }

    console.log(`$ ${render(p.validate)}`);
    const res = await fetch(p.validate.url, { headers: { 'Fastly-Key': token, Accept: 'application/json' } });
    const body = (await res.json().catch(() => ({}))) as { status?: string; errors?: unknown[]; warnings?: unknown[]; msg?: string };
    for (const w of body.warnings ?? []) console.warn(`# validation warning: ${JSON.stringify(w)}`);
    if (!res.ok || body.status !== 'ok') {
      throw new Error(`validation of version ${version} failed (HTTP ${res.status}): ${JSON.stringify(body.errors ?? body.msg ?? body)}`);
    }

    run(p.activate);
  } catch (err) {
    throw new Error(`${(err as Error).message}\nVersion ${version} was cloned but not activated; the active version is unchanged.`);
  }
  console.log(`# activated version ${version} of service ${serviceId}`);
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2), process.env);
  if (!existsSync(VCL_PATH) || readFileSync(VCL_PATH, 'utf8').trim() === '') {
    throw new UsageError(`${VCL_PATH} is missing or empty`);
  }
  if (o.dryRun) {
    printDryRun(o);
    return;
  }
  const token = process.env.FASTLY_API_TOKEN;
  const missing = [
    !token && 'FASTLY_API_TOKEN (environment: a Fastly API token with engineer rights on the service)',
    !o.serviceId && 'the service id (--service-id or FASTLY_SERVICE_ID)',
    !o.backendHost && 'the backend host (--backend-host or SAMMY_BACKEND_HOST)',
  ].filter((m): m is string => typeof m === 'string');
  if (missing.length > 0) throw new UsageError(`missing ${missing.join('; ')}.\nUse --dry-run to see the commands without them.`);
  await deploy(o, token!, o.serviceId!, o.backendHost!);
}

main().catch((err: unknown) => {
  console.error(`deploy:fastly: ${err instanceof Error ? err.message : String(err)}`);
  if (err instanceof UsageError) console.error(`\n${USAGE}`);
  process.exit(1);
});

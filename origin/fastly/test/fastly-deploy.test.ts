/**
 * `npm run deploy:fastly` (origin/fastly/deploy.ts): the dry run's commands, checked against the
 * real Fastly CLI's own help, and the refusals that come before any command runs.
 * The Fastly API is not reachable from here, so no test deploys.
 */
import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ORIGIN_DIR = fileURLToPath(new URL('..', import.meta.url));
const VCL_PATH = fileURLToPath(new URL('../main.vcl', import.meta.url));
const SERVICE = 'SU1Z0isxPaozGVKXdv0eY';
const V = "'--version=<N>'";
const run = promisify(execFile);

/** The environment without any Fastly credentials or deploy settings of the developer's. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('FASTLY_') || key.startsWith('SAMMY_BACKEND_')) delete env[key];
  }
  return { ...env, ...extra };
}

function deploy(args: string[], env = cleanEnv()) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'deploy.ts', ...args], {
    cwd: ORIGIN_DIR,
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function commandLines(stdout: string): string[] {
  return stdout.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('deploy:fastly --dry-run', () => {
  it('prints the clone, VCL upload, backend, validate and activate commands, in order', { timeout: 30_000 }, () => {
    const r = deploy(['--dry-run', `--service-id=${SERVICE}`, '--backend-host=origin.example.com']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const common = `--service-id=${SERVICE} ${V} --non-interactive`;
    // Default backend: the Express origin's port, plain HTTP.
    const backend = '--name=sammy_origin --address=origin.example.com --port=8080 --override-host=origin.example.com';
    expect(commandLines(r.stdout)).toEqual([
      `fastly service version clone --service-id=${SERVICE} --version=active --json --non-interactive`,
      `fastly service vcl custom list ${common} --json`,
      `fastly service vcl custom update ${common} --name=sammy_main --content=${VCL_PATH}`,
      `fastly service vcl custom create ${common} --name=sammy_main --main --content=${VCL_PATH}`,
      `fastly service backend list ${common} --json`,
      `fastly service backend update ${common} ${backend}`,
      `fastly service backend create ${common} ${backend}`,
      `GET https://api.fastly.com/service/${SERVICE}/version/<N>/validate  (header Fastly-Key: $FASTLY_API_TOKEN)`,
      `fastly service version activate ${common}`,
    ]);
    expect(r.stdout).toContain('none was run');
  });

  it('takes the service and backend from the environment; TLS by default on port 443', { timeout: 30_000 }, () => {
    const r = deploy(
      ['--dry-run'],
      cleanEnv({ FASTLY_SERVICE_ID: 'svc42', SAMMY_BACKEND_HOST: 'media.example.net', SAMMY_BACKEND_PORT: '443' }),
    );
    expect(r.status).toBe(0);
    const create = commandLines(r.stdout).find((l) => l.startsWith('fastly service backend create'));
    expect(create).toBe(
      `fastly service backend create --service-id=svc42 ${V} --non-interactive --name=sammy_origin ` +
        '--address=media.example.net --port=443 --override-host=media.example.net ' +
        '--use-ssl --ssl-check-cert --ssl-cert-hostname=media.example.net --ssl-sni-hostname=media.example.net',
    );
  });

  it('uses only subcommands and flags the installed Fastly CLI knows', { timeout: 60_000 }, async () => {
    const fastly = (await import('@fastly/cli')).default;
    const r = deploy(['--dry-run', `--service-id=${SERVICE}`, '--backend-host=origin.example.com']);
    const commands = commandLines(r.stdout)
      .filter((l) => l.startsWith('fastly '))
      .map((l) => l.split(' ').slice(1));
    expect(commands).toHaveLength(8);
    const subcommandOf = (words: string[]) => words.filter((w) => !/^'?-/.test(w));
    // The CLI is slow to print help (seconds each): ask for every subcommand's help at once.
    const paths = [...new Set(commands.map((w) => subcommandOf(w).join(' ')))];
    const helps = new Map(
      await Promise.all(
        paths.map(async (path) => {
          const { stdout, stderr } = await run(fastly, [...path.split(' '), '--help'], { env: cleanEnv() });
          return [path, `${stdout}${stderr}`] as const;
        }),
      ),
    );
    for (const words of commands) {
      const path = subcommandOf(words);
      const help = helps.get(path.join(' '))!;
      // A real leaf command prints its own usage (the CLI may show its alias, e.g. `fastly vcl custom
      // list`); a group or an unknown word prints the group's `<command>` usage instead.
      expect(help, `fastly ${path.join(' ')} --help`).toMatch(new RegExp(`USAGE\\s+fastly [\\w -]*\\b${path.at(-1)} --`));
      const flags = words.filter((w) => /^'?--/.test(w)).map((w) => /--([a-z-]+)/.exec(w)![1]!);
      for (const flag of flags) expect(help, `fastly ${path.join(' ')} --${flag}`).toMatch(new RegExp(`--${flag}\\b`));
    }
  });
});

describe('deploy:fastly without --dry-run', () => {
  it('refuses to start without FASTLY_API_TOKEN and a service id, naming both', { timeout: 30_000 }, () => {
    const r = deploy(['--backend-host=origin.example.com']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('FASTLY_API_TOKEN');
    expect(r.stderr).toContain('FASTLY_SERVICE_ID');
    expect(r.stdout).not.toContain('$ fastly');
  });

  it('refuses to start without a service id even with a token', { timeout: 30_000 }, () => {
    const r = deploy(['--backend-host=origin.example.com'], cleanEnv({ FASTLY_API_TOKEN: 'not-a-real-token' }));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/missing the service id/);
    expect(r.stderr).not.toContain('missing FASTLY_API_TOKEN');
    expect(r.stdout).not.toContain('$ fastly');
  });

  it('rejects a URL where a backend host name belongs', { timeout: 30_000 }, () => {
    const r = deploy(['--dry-run', '--backend-host=https://origin.example.com/media']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--backend-host must be a host name/);
  });
});

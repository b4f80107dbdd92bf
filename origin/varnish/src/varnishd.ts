/**
 * Runs a private varnishd with sammy.vcl in front of a backend: its own working directory (-n), in the
 * foreground (-F), on a free loopback port, stopped and removed by close(). No system service involved.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort } from '@sammy/test-support';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SAMMY_VCL = fileURLToPath(new URL('../sammy.vcl', import.meta.url));

const INSTALL_HINT = 'install them with `apt-get install varnish varnish-modules` (Debian 12: Varnish 7.1, varnish-modules 0.20)';

/** The backend line sammy.vcl ships with (the reference origin on 127.0.0.1:8080). */
const BACKEND_LINE = /^backend default \{ \.host = "[^"]*"; \.port = "[^"]*"; \}$/m;

export interface VarnishSettings {
  /** SAMMY_MIN_PACE_KBPS (default in the VCL: 1024). */
  minPaceKbps?: number;
  /** SAMMY_MAX_PACE_KBPS (default in the VCL: 1000000). */
  maxPaceKbps?: number;
  /** SAMMY_CLIENT_CC: honour Sammy-Congestion-Control (default in the VCL: true). */
  clientCongestionControl?: boolean;
}

export interface StartVarnishOptions extends VarnishSettings {
  backendHost?: string;
  backendPort: number;
  /** Listen address. Default 127.0.0.1. */
  host?: string;
  /** Listen port; 0 (default) picks a free one. */
  port?: number;
  /** Cache storage size for -s malloc. Default 256m. */
  storage?: string;
  /** Extra varnishd arguments, e.g. ['-p', 'thread_pool_min=200']. */
  args?: string[];
}

export interface RunningVarnish {
  url: string;
  port: number;
  /** The management process (varnishd -F). */
  pid: number;
  /** The cache (child) process, which serves requests: its CPU time is Varnish's work. */
  childPid(): number;
  /** Working directory (-n): varnishstat -n reads it. */
  workdir: string;
  /** MAIN counters from varnishstat, e.g. stats(['MAIN.cache_hit']). */
  stats(names: readonly string[]): Record<string, number>;
  close(): Promise<void>;
}

/** Where varnishd and the tcp vmod are, or an error that says how to install them. */
export function findVarnish(): { varnishd: string; varnishstat: string } {
  const which = (cmd: string) => {
    const r = spawnSync('sh', ['-c', `command -v ${cmd} || ls /usr/sbin/${cmd} 2>/dev/null`], { encoding: 'utf8' });
    return r.stdout.trim().split('\n')[0] || undefined;
  };
  const varnishd = which('varnishd');
  const varnishstat = which('varnishstat');
  if (!varnishd || !varnishstat) throw new Error(`varnishd not found: ${INSTALL_HINT}`);
  // -C compiles a VCL that imports the vmods: the quickest check that the tcp vmod loads.
  const probeDir = mkdtempSync(join(tmpdir(), 'sammy-varnish-probe-'));
  try {
    const vcl = join(probeDir, 'probe.vcl');
    writeFileSync(vcl, 'vcl 4.1;\nimport tcp;\nimport var;\nimport str;\nbackend default none;\n');
    const r = spawnSync(varnishd, ['-C', '-j', 'none', '-n', probeDir, '-f', vcl], { encoding: 'utf8' });
    if (r.status !== 0) {
      throw new Error(`varnishd cannot load the tcp/var/str vmods of varnish-modules: ${INSTALL_HINT}\n${r.stderr.slice(-600)}`);
    }
  } finally {
    rmSync(probeDir, { recursive: true, force: true });
  }
  return { varnishd, varnishstat };
}

/** sammy.vcl with its backend line pointed at host:port. */
export function renderVcl(backendHost: string, backendPort: number): string {
  const source = readFileSync(SAMMY_VCL, 'utf8');
  if (!BACKEND_LINE.test(source)) throw new Error(`${SAMMY_VCL} has no \`backend default { .host = ...; .port = ...; }\` line`);
  return source.replace(BACKEND_LINE, `backend default { .host = "${backendHost}"; .port = "${backendPort}"; }`);
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function settingsEnv(s: VarnishSettings): Record<string, string> {
  const env: Record<string, string> = {};
  if (s.minPaceKbps !== undefined) env.SAMMY_MIN_PACE_KBPS = String(s.minPaceKbps);
  if (s.maxPaceKbps !== undefined) env.SAMMY_MAX_PACE_KBPS = String(s.maxPaceKbps);
  if (s.clientCongestionControl !== undefined) env.SAMMY_CLIENT_CC = s.clientCongestionControl ? '1' : '0';
  return env;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

async function startOnce(opts: StartVarnishOptions, port: number): Promise<RunningVarnish> {
  const { varnishd, varnishstat } = findVarnish();
  const host = opts.host ?? '127.0.0.1';
  const workdir = mkdtempSync(join(tmpdir(), 'sammy-varnish-'));
  const vclPath = join(workdir, 'sammy.vcl');
  writeFileSync(vclPath, renderVcl(opts.backendHost ?? '127.0.0.1', opts.backendPort));
  const args = [
    '-F',
    '-n',
    workdir,
    '-a',
    `${host}:${port}`,
    '-f',
    vclPath,
    '-s',
    `malloc,${opts.storage ?? '256m'}`,
    // No privilege separation: runs as whoever starts it (also as root, without a varnish user's access to /tmp).
    '-j',
    'none',
    // No management CLI port: nothing here needs varnishadm.
    '-T',
    'none',
    ...(opts.args ?? []),
  ];
  const child = spawn(varnishd, args, {
    env: { ...process.env, ...settingsEnv(opts) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));

  const cleanup = () => rmSync(workdir, { recursive: true, force: true });
  // Ready when the child accepts: the management process binds first, then starts the child.
  const deadline = performance.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      cleanup();
      throw new Error(`varnishd exited (${child.exitCode ?? child.signalCode}) while starting:\n${output}`);
    }
    if (/Child \(\d+\) said Child starts/.test(output) && (await canConnect(host, port))) break;
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      await exited(child);
      cleanup();
      throw new Error(`varnishd did not start within 20 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  const pid = child.pid!;
  // If this process dies without close() (an uncaught error), do not leave the server running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    pid,
    workdir,
    childPid() {
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      if (children.length !== 1) throw new Error(`varnishd ${pid} has ${children.length} child processes, expected 1`);
      return Number(children[0]);
    },
    stats(names) {
      const r = spawnSync(varnishstat, ['-n', workdir, '-1', '-j', ...names.flatMap((n) => ['-f', n])], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`varnishstat failed (${r.status}): ${r.stderr}`);
      const json = JSON.parse(r.stdout) as { counters?: Record<string, { value: number }> } & Record<string, unknown>;
      // Varnish 7 nests counters under "counters"; older versions put them at the top level.
      const counters = (json.counters ?? json) as Record<string, { value?: number } | undefined>;
      return Object.fromEntries(names.map((n) => [n, counters[n]?.value ?? NaN]));
    },
    close: () =>
      (closing ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited(child);
          clearTimeout(timer);
        }
        cleanup();
      })()),
  };
}

/** Starts varnishd with sammy.vcl in front of backendHost:backendPort. */
export async function startVarnish(opts: StartVarnishOptions): Promise<RunningVarnish> {
  if (opts.port !== undefined && opts.port !== 0) return startOnce(opts, opts.port);
  // A free port can be taken between the probe and varnishd's bind: try a few.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(opts, await freePort(opts.host ?? '127.0.0.1'));
    } catch (err) {
      lastError = err;
      if (!/Address already in use|bind/i.test(String((err as Error).message))) throw err;
    }
  }
  throw lastError;
}

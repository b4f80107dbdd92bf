/**
 * Runs a private nginx with the recipe (nginx.conf + sammy-maps.conf) in front of a backend: its own
 * prefix, config, cache and temp dirs, in the foreground, on a free loopback port, stopped and removed
 * by close(). No system service involved.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort } from '@sammy/test-support';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSammyMaps, type SammyMapsOptions } from './sammy-maps.js';

export const NGINX_CONF = fileURLToPath(new URL('../nginx.conf', import.meta.url));

const INSTALL_HINT = 'install it with `apt-get install nginx` (Debian 12: nginx 1.22)';

export interface StartNginxOptions extends SammyMapsOptions {
  backendHost?: string;
  backendPort: number;
  /** Listen port; 0 (default) picks a free one. */
  port?: number;
}

export interface RunningNginx {
  url: string;
  port: number;
  pid: number;
  prefix: string;
  close(): Promise<void>;
}

export function findNginx(): string {
  const r = spawnSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx 2>/dev/null'], { encoding: 'utf8' });
  const nginx = r.stdout.trim().split('\n')[0];
  if (!nginx) throw new Error(`nginx not found: ${INSTALL_HINT}`);
  return nginx;
}

/** nginx.conf with its listen and upstream server lines pointed at the given ports. */
export function renderNginxConf(listenPort: number, backendHost: string, backendPort: number): string {
  const source = readFileSync(NGINX_CONF, 'utf8');
  const swap = (text: string, pattern: RegExp, line: string) => {
    if ((text.match(pattern) ?? []).length !== 1) throw new Error(`${NGINX_CONF}: expected one line matching ${pattern}`);
    return text.replace(pattern, line);
  };
  let conf = swap(source, /^ {8}listen 127\.0\.0\.1:\d+;$/gm, `        listen 127.0.0.1:${listenPort};`);
  conf = swap(conf, /^ {8}server 127\.0\.0\.1:8080;$/gm, `        server ${backendHost}:${backendPort};`);
  return conf;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

export async function startNginx(opts: StartNginxOptions): Promise<RunningNginx> {
  const nginx = findNginx();
  const port = opts.port || (await freePort());
  const prefix = mkdtempSync(join(tmpdir(), 'sammy-nginx-'));
  // Workers run unprivileged when started as root: they must reach the prefix (cache, temp dirs).
  chmodSync(prefix, 0o755);
  mkdirSync(join(prefix, 'tmp'));
  writeFileSync(join(prefix, 'nginx.conf'), renderNginxConf(port, opts.backendHost ?? '127.0.0.1', opts.backendPort));
  writeFileSync(join(prefix, 'sammy-maps.conf'), renderSammyMaps(opts));
  const child = spawn(nginx, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const cleanup = () => rmSync(prefix, { recursive: true, force: true });
  const deadline = performance.now() + 10_000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null || child.signalCode !== null || performance.now() > deadline) {
      child.kill('SIGKILL');
      await exited(child);
      let log = '';
      try {
        log = readFileSync(join(prefix, 'error.log'), 'utf8').slice(-2000);
      } catch {}
      cleanup();
      throw new Error(`nginx did not start (exit ${child.exitCode ?? child.signalCode}):\n${output}\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // If this process dies without close() (an uncaught error), do not leave the server running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    prefix,
    close: () =>
      (closing ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          // SIGQUIT: graceful stop (workers finish, then exit); SIGKILL if that takes too long.
          child.kill('SIGQUIT');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited(child);
          clearTimeout(timer);
        }
        cleanup();
      })()),
  };
}

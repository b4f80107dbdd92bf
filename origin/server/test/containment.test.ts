/** Media-root containment with real symlinks in a temp dir: nothing outside the served directory is sent. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect as http2Connect } from 'node:http2';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devCertificate } from '../src/dev-certificate.js';
import type { RunningOrigin } from '../src/server.js';
import { get, startTestOrigin } from './helpers.js';

const SECRET = 'root:x:0:0:secret outside the media root\n';
let top: string;
let origin: RunningOrigin;

beforeAll(async () => {
  top = mkdtempSync(join(tmpdir(), 'sammy-containment-'));
  const media = join(top, 'media');
  const site = join(top, 'site');
  // A sibling whose name starts with the root's: a prefix test alone would let it through.
  const sibling = join(top, 'media-evil');
  for (const dir of [media, join(media, 'sub'), site, sibling]) mkdirSync(dir);
  writeFileSync(join(top, 'secret.txt'), SECRET);
  writeFileSync(join(sibling, 'secret.m4s'), SECRET);
  writeFileSync(join(media, 'real.m4s'), 'inside');
  writeFileSync(join(media, 'sub', 'deep.m4s'), 'deep inside');
  writeFileSync(join(site, 'index.html'), '<!doctype html><title>site</title>');
  symlinkSync('/etc/passwd', join(media, 'evil.m4s'));
  symlinkSync(join(top, 'secret.txt'), join(media, 'secret.m4s'));
  symlinkSync('../media-evil/secret.m4s', join(media, 'prefix.m4s'));
  symlinkSync('/etc', join(media, 'etc'));
  symlinkSync(top, join(media, 'up'));
  symlinkSync('loop.m4s', join(media, 'loop.m4s'));
  symlinkSync(join(media, 'real.m4s'), join(media, 'inner-absolute.m4s'));
  symlinkSync('sub/deep.m4s', join(media, 'inner-relative.m4s'));
  symlinkSync('sub', join(media, 'subdir'));
  symlinkSync(join(top, 'secret.txt'), join(site, 'leak.html'));
  origin = await startTestOrigin(media, { siteDir: site });
});
afterAll(async () => {
  await origin?.close();
  rmSync(top, { recursive: true, force: true });
});

describe('media root containment', () => {
  it.each([
    ['/media/evil.m4s', 'a symlink to /etc/passwd'],
    ['/media/secret.m4s', 'an absolute symlink out of the root'],
    ['/media/prefix.m4s', "a relative symlink into a sibling sharing the root's prefix"],
    ['/media/etc/passwd', 'a file under a symlinked directory outside'],
    ['/media/up/secret.txt', 'a symlink to the parent directory'],
    ['/leak.html', 'a symlink out of the site directory'],
  ])('%s (%s) is refused', async (path) => {
    for (const method of ['GET', 'HEAD']) {
      const res = await get(origin, path, { method });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.toString()).not.toContain('root:');
    }
  });

  it.each([
    ['/media/real.m4s', 'inside'],
    ['/media/inner-absolute.m4s', 'inside'],
    ['/media/inner-relative.m4s', 'deep inside'],
    ['/media/subdir/deep.m4s', 'deep inside'],
  ])('%s, inside the root, is served', async (path, body) => {
    const res = await get(origin, path);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe(body);
  });

  it('a symlink loop and a missing file are 404, never 5xx', async () => {
    expect((await get(origin, '/media/loop.m4s')).status).toBe(404);
    expect((await get(origin, '/media/missing.m4s')).status).toBe(404);
  });

  it('encoded traversal is refused as before', async () => {
    for (const path of ['/media/..%2fsecret.txt', '/media/%2e%2e/secret.txt', '/media/sub/..%2f..%2fsecret.txt']) {
      const res = await get(origin, path);
      expect([400, 403, 404], path).toContain(res.status);
      expect(res.body.toString()).not.toContain('root:');
    }
  });

  it('a raw request line with ../ does not leave the root either', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      let received = '';
      const socket = connect(origin.port, '127.0.0.1', () =>
        socket.write('GET /media/../secret.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (received += d));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
    expect(text).not.toContain('root:');
    expect(text).not.toMatch(/^HTTP\/1\.1 200/);
  });
});

/**
 * The same links reached through every request-target form a client can send (origin-form,
 * absolute-form, a fragment, both), over HTTP/1.1, HTTP/1.1 over TLS and HTTP/2: the path checked
 * must be the path served. Raw request lines, since no well-behaved client sends these.
 */
describe('containment for every request-target form, on every transport', () => {
  let tlsOrigin: RunningOrigin;
  beforeAll(async () => {
    const media = join(top, 'media');
    const site = join(top, 'site');
    mkdirSync(join(site, 'sub'));
    symlinkSync(join(top, 'secret.txt'), join(site, 'sub', 'index.html'));
    symlinkSync('/etc', join(media, 'outdir'));
    tlsOrigin = await startTestOrigin(media, { siteDir: site, tls: await devCertificate(join(top, 'tls')) });
  });
  afterAll(() => tlsOrigin?.close());

  const linked = ['/media/evil.m4s', '/media/secret.m4s', '/media/outdir/passwd', '/leak.html', '/sub/', '/sub/index.html'];
  const forms = (path: string) => [path, `${path}#x`, `http://x${path}`, `http://x${path}#x`, `https://localhost${path}`];

  /** One raw HTTP/1.1 exchange on `socket`: the status line's code and the whole answer. */
  const exchange = (open: () => Socket | TLSSocket, target: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const socket = open();
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
      socket.on('error', reject);
      socket.write(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    });

  it.each(linked)('%s: refused in every form over HTTP/1.1 and HTTP/1.1 over TLS', async (path) => {
    for (const target of forms(path)) {
      const plain = await exchange(() => connect(origin.port, '127.0.0.1'), target);
      const overTls = await exchange(
        () =>
          tlsConnect({
            port: tlsOrigin.port,
            host: '127.0.0.1',
            servername: 'localhost',
            ALPNProtocols: ['http/1.1'],
            rejectUnauthorized: false,
          }),
        target,
      );
      for (const [transport, res] of [
        ['HTTP/1.1', plain],
        ['TLS', overTls],
      ] as const) {
        expect(res.text, `${transport} ${target}`).not.toContain('root:');
        expect([400, 403], `${transport} ${target}: ${res.text.split('\r\n')[0]}`).toContain(res.status);
      }
    }
  });

  it.each(linked)('%s: refused in every form over HTTP/2', async (path) => {
    const session = http2Connect(tlsOrigin.url, { rejectUnauthorized: false });
    try {
      for (const target of [path, `${path}#x`]) {
        const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const stream = session.request({ ':path': target });
          let status = 0;
          let body = '';
          stream.on('response', (h) => (status = Number(h[':status'])));
          stream.setEncoding('utf8').on('data', (d: string) => (body += d));
          stream.on('end', () => resolve({ status, body }));
          stream.on('error', reject);
          stream.end();
        });
        expect(body, target).not.toContain('root:');
        expect([400, 403], `h2 ${target}`).toContain(status);
      }
    } finally {
      session.close();
    }
  });

  it('what is inside is still served, in absolute-form too', async () => {
    for (const target of ['/media/real.m4s', 'http://x/media/subdir/deep.m4s', 'http://localhost/media/inner-absolute.m4s']) {
      const res = await exchange(() => connect(origin.port, '127.0.0.1'), target);
      expect(res.status, target).toBe(200);
      expect(res.text).toMatch(/inside$/);
    }
  });
});

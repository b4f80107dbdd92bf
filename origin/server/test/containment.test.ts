/** Media-root containment with real symlinks in a temp dir: nothing outside the served directory is sent. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
      const socket = connect(origin.port, '127.0.0.1', () => socket.write('GET /media/../secret.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (received += d));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
    expect(text).not.toContain('root:');
    expect(text).not.toMatch(/^HTTP\/1\.1 200/);
  });
});

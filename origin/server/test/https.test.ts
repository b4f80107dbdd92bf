/**
 * HTTPS with HTTP/2 and HTTP/1.1 (ALPN) on the reference server: the development certificate, the
 * same content, containment and records over h2, and the CLI that serves both and says how to trust it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseServerTiming, RECORDS_PATH, type DeliveryRecord } from 'sammy-pacing-protocol';
import { h2Connect, h2Get } from '../../middleware/test/http2-helpers.js';
import { devCertificate, spkiHash, type TlsCredentials } from '../src/dev-certificate.js';
import type { RunningOrigin } from '../src/server.js';
import { cmcdQuery, startTestOrigin, waitFor } from './helpers.js';

let dir: string;
let media: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sammy-https-'));
  media = join(dir, 'media');
  mkdirSync(join(media, 'v'), { recursive: true });
  writeFileSync(join(media, 'v', 'seg-1.m4s'), Buffer.alloc(300_000, 1));
  writeFileSync(join(media, 'v', 'manifest.mpd'), '<?xml version="1.0"?><MPD/>');
  symlinkSync('/etc/passwd', join(media, 'v', 'evil.m4s'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('devCertificate', () => {
  it('generates a localhost certificate once, caches it (key 0600), and regenerates a broken one', async () => {
    const certDir = join(dir, 'tls');
    const first = await devCertificate(certDir);
    const x509 = new X509Certificate(first.cert);
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(first.spkiHash).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(statSync(first.keyPath!).mode & 0o777).toBe(0o600);
    expect((await devCertificate(certDir)).spkiHash, 'cached').toBe(first.spkiHash);
    writeFileSync(first.certPath!, 'not a certificate');
    const again = await devCertificate(certDir);
    expect(again.spkiHash).not.toBe(first.spkiHash);
    expect(spkiHash(again.cert)).toBe(again.spkiHash);
  });
});

describe('the reference server over HTTPS', () => {
  let tls: TlsCredentials;
  let origin: RunningOrigin;
  beforeAll(async () => {
    tls = await devCertificate(join(dir, 'tls-server'));
    origin = await startTestOrigin(media, { tls });
  });
  afterAll(() => origin.close());

  it('negotiates h2 by ALPN and serves media with its type, paced, with the shared-connection report', async () => {
    expect(origin.url).toMatch(/^https:\/\/localhost:\d+$/);
    const session = await h2Connect({ url: origin.url, cert: tls.cert });
    try {
      expect(session.alpnProtocol).toBe('h2');
      const res = await h2Get(session, `/media/v/seg-1.m4s?${cmcdQuery(4000)}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('video/iso.segment');
      expect(res.bytes).toBe(300_000);
      expect(parseServerTiming(String(res.headers['server-timing']))).toMatchObject({
        appliedPaceKbps: 4000,
        sharedConnection: { reason: 'own' },
      });
      const manifest = await h2Get(session, '/media/v/manifest.mpd');
      expect(manifest.headers['content-type']).toBe('application/dash+xml');
      expect((await h2Get(session, '/media/v/evil.m4s')).status, 'symlink out of the root').toBe(403);
      expect((await h2Get(session, '/media/v/none.m4s')).status).toBe(404);
      expect((await h2Get(session, '/media/%E0%A4%A')).status).toBe(400);
      const records = await h2Get(session, RECORDS_PATH);
      expect(records.status).toBe(200);
    } finally {
      session.close();
    }
  });

  it('serves HTTP/1.1 over TLS to a client that does not offer h2', async () => {
    const { status, version } = await new Promise<{ status: number; version: string }>((resolve, reject) => {
      const req = httpsRequest(`${origin.url}/media/v/manifest.mpd`, { ca: tls.cert }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, version: res.httpVersion }));
      });
      req.on('error', reject);
      req.end();
    });
    expect({ status, version }).toEqual({ status: 200, version: '1.1' });
  });

  it('records each h2 response with its protocol', async () => {
    const session = await h2Connect({ url: origin.url, cert: tls.cert });
    try {
      const res = await h2Get(session, `/media/v/seg-1.m4s?CMCD=${encodeURIComponent('ot=v,rtp=8000')}`);
      const id = parseServerTiming(String(res.headers['server-timing'])).recordId;
      let record: DeliveryRecord | undefined;
      await waitFor(() => (record = origin.pacing.records.list().find((r) => r.id === id)) !== undefined, 10_000);
      expect(record).toMatchObject({ httpVersion: '2', objectType: 'v', requestedRtpKbps: 8000, endReason: 'delivered', bytes: 300_000 });
    } finally {
      session.close();
    }
  });
});

describe('the CLI serves HTTPS and HTTP, and says how to trust the certificate', () => {
  const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

  it("prints both URLs and the certificate's SPKI hash, and serves h2 with it", async () => {
    const certDir = join(dir, 'cli-tls');
    const own = await devCertificate(certDir); // an operator's own files, through --cert/--key
    const child = spawn(
      process.execPath,
      [cli, '--port', '0', '--https-port', '0', '--media-dir', media, '--cert', own.certPath!, '--key', own.keyPath!],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await waitFor(() => /serving on https:\/\/\S+/.test(output) && /serving on http:\/\/\S+/.test(output), 15_000);
      const https = /serving on (https:\/\/\S+?)\/?\s/.exec(output)![1]!;
      expect(https).toMatch(/^https:\/\/localhost:\d+$/);
      const session = await h2Connect({ url: https, cert: own.cert });
      expect((await h2Get(session, '/media/v/manifest.mpd')).status).toBe(200);
      session.close();
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('with the development certificate, prints how to trust it', async () => {
    const child = spawn(process.execPath, [cli, '--no-http', '--https-port', '0', '--media-dir', media], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await waitFor(() => /ignore-certificate-errors-spki-list=\S+/.test(output), 30_000);
      const hash = /spki-list=(\S+)/.exec(output)![1]!;
      const certPath = /--cacert (\S+)/.exec(output)![1]!;
      expect(spkiHash((await import('node:fs')).readFileSync(certPath, 'utf8'))).toBe(hash);
      expect(output).not.toMatch(/serving on http:\/\//);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});

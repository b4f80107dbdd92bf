/**
 * `--http2` without the namespaces (no root needed): the CLI's refusals, the lab server over HTTPS
 * (h2 by ALPN, HTTP/1.1 too) with the lab certificate on loopback, the same server over plain
 * HTTP/1.1 as before, and the rule that fails a run whose media did not all go over h2.
 */
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCliArgs } from '../src/cli-options.js';
import { labCertificate, type LabCertificate } from '../src/lab-certificate.js';
import type { PageState } from '../src/page-state.js';
import { start, waitForLine, type Child } from '../src/processes.js';
import { protocolProblem } from '../src/run.js';
import { nodeScript } from '../src/scripts.js';
import { SERVER_IP } from '../src/topology.js';

describe('--http2 on the command line', () => {
  it('is off by default and on with --http2', () => {
    const plain = parseCliArgs([]);
    const h2 = parseCliArgs(['--http2', '--runs', '1']);
    expect(!plain.help && plain.config.http2).toBe(false);
    expect(!h2.help && h2.config.http2).toBe(true);
  });

  it('refuses --http2 with --edge varnish, saying why', () => {
    expect(() => parseCliArgs(['--http2', '--edge', 'varnish'])).toThrow(/--http2 cannot go with --edge varnish.*no TLS/);
    expect(() => parseCliArgs(['--edge', 'varnish'])).not.toThrow();
  });
});

describe('the lab certificate', () => {
  it('names the lab server address and loopback, and is cached', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sammy-lab-cert-'));
    try {
      const a = await labCertificate(SERVER_IP, dir);
      const c = new X509Certificate(a.cert);
      expect(c.checkIP(SERVER_IP)).toBe(SERVER_IP);
      expect(c.checkIP('127.0.0.1')).toBe('127.0.0.1');
      expect(c.checkIP('10.0.0.1')).toBeUndefined();
      expect(a.spkiHash).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      const b = await labCertificate(SERVER_IP, dir);
      expect(b.spkiHash).toBe(a.spkiHash);
      // Another address: a new certificate (the cached one does not name it).
      const other = await labCertificate('10.9.8.7', dir);
      expect(other.spkiHash).not.toBe(a.spkiHash);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The lab server on loopback, port chosen by the kernel. */
async function labServer(dir: string, tls?: LabCertificate): Promise<{ child: Child; port: number; protocol: string }> {
  const [node, ...script] = nodeScript('lab-server');
  const child = start(node as string, [
    ...script,
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--media',
    join(dir, 'media'),
    '--page',
    join(dir, 'page'),
    '--cc',
    'cubic',
    '--seed',
    '3',
    ...(tls ? ['--tls-cert', tls.certPath, '--tls-key', tls.keyPath] : []),
  ]);
  const line = await waitForLine(child, (l) => l.includes('"ready"'), 20_000, 'lab server');
  const ready = JSON.parse(line) as { port: number; protocol: string };
  return { child, port: ready.port, protocol: ready.protocol };
}

interface H2Answer {
  status: number;
  bytes: number;
  headers: http2.IncomingHttpHeaders;
  alpn?: string;
}

function h2Get(session: http2.ClientHttp2Session, path: string): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': path });
    let headers: http2.IncomingHttpHeaders = {};
    let bytes = 0;
    req.on('response', (h) => (headers = h));
    req.on('data', (d: Buffer) => (bytes += d.length));
    req.on('end', () => resolve({ status: Number(headers[':status']), bytes, headers, alpn: session.alpnProtocol }));
    req.on('error', reject);
    req.end();
  });
}

function get(
  mod: typeof http | typeof https,
  url: string,
  opts: https.RequestOptions & { ALPNProtocols?: string[] } = {},
): Promise<{ status: number; bytes: number; version: string; alpn?: string }> {
  return new Promise((resolve, reject) => {
    mod
      .get(url, { ...opts, agent: false }, (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            bytes,
            version: res.httpVersion,
            alpn: (res.socket as { alpnProtocol?: string | false }).alpnProtocol || undefined,
          }),
        );
      })
      .on('error', reject);
  });
}

describe('the lab server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sammy-lab-h2-'));
  let tls: LabCertificate;
  const children: Child[] = [];

  beforeAll(async () => {
    mkdirSync(join(dir, 'media'));
    mkdirSync(join(dir, 'page'));
    writeFileSync(join(dir, 'media', 'seg.m4s'), Buffer.alloc(200_000, 7));
    writeFileSync(join(dir, 'page', 'index.html'), '<!doctype html><p>lab</p>');
    tls = await labCertificate(SERVER_IP, join(dir, 'tls'));
  });

  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop(2000)));
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers HTTP/2 over TLS with the lab certificate, paces by CMCD rtp, and HTTP/1.1 to clients without h2', async () => {
    const server = await labServer(dir, tls);
    children.push(server.child);
    expect(server.protocol).toBe('https');
    const origin = `https://127.0.0.1:${server.port}`;

    const session = http2.connect(origin, { ca: tls.cert });
    try {
      const page = await h2Get(session, '/lab/index.html');
      expect(page).toMatchObject({ status: 200, alpn: 'h2' });
      const blob = await h2Get(session, '/lab/blob/100000');
      expect(blob).toMatchObject({ status: 200, bytes: 100_000 });
      expect((await h2Get(session, '/lab/blob/0')).status).toBe(400);
      expect((await h2Get(session, '/nothing')).status).toBe(404);
      // Media through the pacing middleware, on the shared-connection path (sammy-conn), paced at its rtp.
      const seg = await h2Get(session, '/media/seg.m4s?CMCD=rtp%3D5000');
      expect(seg).toMatchObject({ status: 200, bytes: 200_000 });
      expect(seg.headers['cache-control']).toBe('no-store');
      const timing = String(seg.headers['server-timing']);
      expect(timing).toMatch(/sammy-pace;dur=5000/);
      expect(timing).toMatch(/sammy-conn;/);
      // The records, as the bench reads them through the page, over the same h2 session.
      const records = await h2Get(session, '/sammy/records');
      expect(records.status).toBe(200);
    } finally {
      session.close();
    }

    // A client that offers only http/1.1 gets it, on the same port.
    const h1 = await get(https, `${origin}/lab/blob/1000`, { ca: tls.cert, ALPNProtocols: ['http/1.1'] });
    expect(h1).toMatchObject({ status: 200, bytes: 1000, version: '1.1', alpn: 'http/1.1' });
    // Trust is the certificate, not any certificate.
    await expect(get(https, `${origin}/lab/blob/10`)).rejects.toThrow(/self-signed|self signed/);
  });

  it('without a certificate stays plain HTTP/1.1, as before', async () => {
    const server = await labServer(dir);
    children.push(server.child);
    expect(server.protocol).toBe('http');
    const origin = `http://127.0.0.1:${server.port}`;
    expect(await get(http, `${origin}/lab/blob/1000`)).toMatchObject({ status: 200, bytes: 1000, version: '1.1' });
    expect((await get(http, `${origin}/lab/blob/x`)).status).toBe(400);
    expect((await get(http, `${origin}/lab/index.html`)).status).toBe(200);
    expect((await get(http, `${origin}/media/seg.m4s`)).bytes).toBe(200_000);
    expect((await get(http, `${origin}/nothing`)).status).toBe(404);
  });
});

describe('a run asked for h2', () => {
  const page = (media: Record<string, number>, mismatches: string[] = []): PageState => ({
    arm: 'sammy',
    role: 'main',
    playRequestedAt: 0,
    stalls: [],
    qualities: [],
    chunks: [],
    paces: [],
    phases: [],
    errors: [],
    ended: false,
    protocols: { expected: 'h2', media, mismatches },
  });

  it('passes only when every media request went over h2', () => {
    expect(protocolProblem(page({ h2: 40 }), 'h2', 'run')).toBeUndefined();
    expect(protocolProblem(page({ h2: 39, 'http/1.1': 1 }, ['http/1.1 /media/lab/seg.m4s']), 'h2', 'run')).toMatch(
      /http\/1\.1 × 1, not h2/,
    );
    expect(protocolProblem(page({}), 'h2', 'run')).toMatch(/no media request completed/);
    expect(protocolProblem({ ...page({}), protocols: undefined }, 'h2', 'run')).toMatch(/recorded no protocols/);
  });
});

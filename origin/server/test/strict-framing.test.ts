/**
 * HTTP/1 framing where node:http is lenient, on the reference origin over plain HTTP and over TLS
 * (HTTP/1.1 by ALPN), written byte by byte: a duplicate Host, Transfer-Encoding on HTTP/1.0, HTTP/1.1
 * without Host, and If-Range with a weak entity tag.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devCertificate } from '../src/dev-certificate.js';
import type { RunningOrigin } from '../src/server.js';
import { startTestOrigin } from './helpers.js';

const FILE_BYTES = 10_000;
let dir: string;
const origins: Record<'http' | 'https', RunningOrigin | undefined> = { http: undefined, https: undefined };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sammy-framing-'));
  mkdirSync(join(dir, 'media', 'v'), { recursive: true });
  writeFileSync(join(dir, 'media', 'v', 'manifest.mpd'), 'x'.repeat(FILE_BYTES));
  origins.http = await startTestOrigin(join(dir, 'media'));
  origins.https = await startTestOrigin(join(dir, 'media'), { tls: await devCertificate(join(dir, 'tls')) });
});
afterAll(async () => {
  await Promise.all(Object.values(origins).map((o) => o?.close()));
  rmSync(dir, { recursive: true, force: true });
});

interface Exchange {
  /** Every status line's code, in order. */
  statuses: number[];
  text: string;
  /** The server closed the connection (within the wait). */
  closed: boolean;
}

/** Writes `bytes` on a fresh HTTP/1.1 connection and reads until the server closes it or `waitMs` passes. */
function exchange(scheme: 'http' | 'https', bytes: string, waitMs = 800): Promise<Exchange> {
  const origin = origins[scheme]!;
  return new Promise((resolve, reject) => {
    const socket: Socket =
      scheme === 'http'
        ? tcpConnect(origin.port, '127.0.0.1', () => socket.write(bytes))
        : tlsConnect(
            { port: origin.port, host: '127.0.0.1', servername: 'localhost', ALPNProtocols: ['http/1.1'], rejectUnauthorized: false },
            () => socket.write(bytes),
          );
    let text = '';
    socket.setEncoding('latin1').on('data', (d: string) => (text += d));
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ statuses: [...text.matchAll(/^HTTP\/1\.[01] (\d{3})/gm)].map((m) => Number(m[1])), text, closed });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.once('close', () => done(true));
    socket.once('error', reject);
  });
}

const GET = (extra: string, version = '1.1') => `GET /media/v/manifest.mpd HTTP/${version}\r\n${extra}\r\n`;

describe.each(['http', 'https'] as const)('strict HTTP/1 framing over %s', (scheme) => {
  it('a well-formed request is served, and the connection kept', async () => {
    const res = await exchange(scheme, GET('Host: localhost\r\n'));
    expect(res.statuses).toEqual([200]);
    expect(res.closed).toBe(false);
  });

  it('a duplicate Host is 400 (RFC 9112 §3.2), never served by either name', async () => {
    const res = await exchange(scheme, GET('Host: localhost\r\nHost: evil.example\r\n'));
    expect(res.statuses).toEqual([400]);
    expect(res.closed).toBe(true);
  });

  it('Transfer-Encoding on an HTTP/1.0 keep-alive request is 400 and the connection closed (§6.1), the next request never read', async () => {
    const chunked = GET('Host: localhost\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n', '1.0') + '0\r\n\r\n';
    const res = await exchange(scheme, chunked + GET('Host: localhost\r\n'));
    expect(res.statuses).toEqual([400]);
    expect(res.closed).toBe(true);
  });

  it('HTTP/1.1 without Host is 400', async () => {
    const res = await exchange(scheme, GET(''));
    expect(res.statuses).toEqual([400]);
  });

  it('If-Range with a weak entity tag gets the whole file (200), a Range alone 206 (RFC 9110 §13.1.5)', async () => {
    const first = await exchange(scheme, GET('Host: localhost\r\nConnection: close\r\nRange: bytes=0-99\r\n'));
    expect(first.statuses).toEqual([206]);
    const etag = /^etag: (.+)\r$/im.exec(first.text)?.[1];
    expect(etag, 'serve-static sends a weak ETag').toMatch(/^W\//);
    const res = await exchange(scheme, GET(`Host: localhost\r\nConnection: close\r\nRange: bytes=0-99\r\nIf-Range: ${etag}\r\n`));
    expect(res.statuses).toEqual([200]);
    expect(res.text).toMatch(new RegExp(`^content-length: ${FILE_BYTES}\\r$`, 'im'));
  });
});

/**
 * The reference origin (HTTPS, HTTP/2 and HTTP/1.1, its own defaults) against a bounded set of HTTP/2
 * abuse, written frame by frame: rapid reset, a zero window kept alive with PINGs, CONTINUATION and
 * SETTINGS floods, an oversized header block. After each: no 5xx, this process's fds and handles back
 * to where they were, and a normal client on a fresh session served whole at ≥ 0.9× its rtp.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { h2Connect, h2Get } from '../../middleware/test/http2-helpers.js';
import { activeResources, expectPacedAt } from '../../middleware/test/helpers.js';
import {
  PREFACE,
  ERROR_CODE,
  FLAG,
  FRAME,
  frame,
  getHeaders,
  headerBlock,
  openFds,
  ping,
  rawH2,
  rstStream,
  SETTING,
  settingsPayload,
  type RawH2Session,
} from '../../middleware/test/raw-h2.js';
import { devCertificate, type TlsCredentials } from '../src/dev-certificate.js';
import { DEFAULT_MAX_CONNECTIONS_PER_CLIENT } from '../src/client-limits.js';
import { MEDIA_ORIGIN_SERVER_OPTIONS, type RunningOrigin } from '../src/server.js';
import { cmcdQuery, startTestOrigin, waitFor } from './helpers.js';

const SEGMENT_BYTES = 1_500_000; // 1.5 s at 8 Mbps
const PROGRESS_TIMEOUT_MS = 3000;
let dir: string;
let tls: TlsCredentials;
let origin: RunningOrigin;
const sessions: RawH2Session[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sammy-hostile-'));
  mkdirSync(join(dir, 'media', 'v'), { recursive: true });
  writeFileSync(join(dir, 'media', 'v', 'seg-1.m4s'), randomBytes(SEGMENT_BYTES));
  writeFileSync(join(dir, 'media', 'v', 'warm.m4s'), randomBytes(1_000_000));
  writeFileSync(join(dir, 'media', 'v', 'conformance.m4s'), randomBytes(100_000));
  writeFileSync(join(dir, 'media', 'v', 'manifest.mpd'), '<?xml version="1.0"?><MPD/>');
  tls = await devCertificate(join(dir, 'tls'));
  origin = await startTestOrigin(join(dir, 'media'), { tls, progressTimeoutMs: PROGRESS_TIMEOUT_MS });
});
afterAll(async () => {
  for (const s of sessions) s.destroy();
  await origin?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function attacker(opts: Parameters<typeof rawH2>[0] extends infer O ? Omit<O, 'port'> : never = {}): Promise<RawH2Session> {
  const s = await rawH2({ port: origin.port, ...opts });
  sessions.push(s);
  return s;
}

/** fds and handles now, and a check that they come back to it once the attackers are gone. */
async function baseline(): Promise<() => Promise<void>> {
  const fds = await openFds();
  const handles = activeResources();
  return async () => {
    for (const s of sessions.splice(0)) s.destroy();
    await waitFor(() => origin.pacing.activeResponses === 0, 10_000);
    await waitFor(async () => (await openFds()) <= fds, 10_000).catch(async () =>
      expect(await openFds(), 'open fds').toBeLessThanOrEqual(fds),
    );
    const kinds = ['TCPSocketWrap', 'TLSWrap', 'FileHandle', 'Timeout'];
    const settledHandles = () => kinds.every((kind) => (activeResources()[kind] ?? 0) <= (handles[kind] ?? 0));
    await waitFor(settledHandles, 10_000).catch(() => expect(activeResources(), 'handles').toMatchObject(handles));
  };
}

/**
 * A normal client on a fresh session: a manifest (never 5xx), then a paced segment whole, at its rtp
 * (never fast; a starved reader only slows it). Returns achieved / rtp, which the tests print.
 */
async function expectNormalClientServed(): Promise<number> {
  const session = await h2Connect({ url: origin.url, cert: tls.cert });
  try {
    expect((await h2Get(session, '/media/v/manifest.mpd')).status).toBe(200);
    await h2Get(session, '/media/v/warm.m4s');
    const res = await h2Get(session, `/media/v/seg-1.m4s?${cmcdQuery(8000)}`);
    expect(res.status).toBe(200);
    expect(res.bytes).toBe(SEGMENT_BYTES);
    expectPacedAt(res.rateKbps, 8000);
    return res.rateKbps / 8000;
  } finally {
    session.close();
  }
}

/** A TLS connection (ALPN h2) from `localAddress`, another loopback address than the normal client's. */
function tlsFrom(localAddress: string): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const tcp = tcpConnect({ port: origin.port, host: '127.0.0.1', localAddress });
    const socket = tlsConnect({ socket: tcp, servername: 'localhost', ALPNProtocols: ['h2'], rejectUnauthorized: false }, () =>
      resolve(socket),
    );
    socket.once('error', reject);
  });
}

/** ms until the server closes a TCP connection from `localAddress` that sends nothing. */
function heldSilentMs(localAddress: string, limitMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const socket = tcpConnect({ port: origin.port, host: '127.0.0.1', localAddress });
    const timer = setTimeout(() => (socket.destroy(), resolve(Infinity)), limitMs);
    socket.on('error', () => {}).once('close', () => (clearTimeout(timer), resolve(performance.now() - startedAt)));
    socket.once('connect', () => socket.off('error', reject));
  });
}

/** Keeps this process's event loop busy (`busyMs` of every `everyMs`), as a loaded origin's is. */
function busyLoop(busyMs: number, everyMs: number): () => void {
  const timer = setInterval(() => {
    const until = performance.now() + busyMs;
    while (performance.now() < until);
  }, everyMs);
  return () => clearInterval(timer);
}

describe('the reference origin under HTTP/2 abuse', () => {
  beforeEach(() => waitFor(() => origin.pacing.activeResponses === 0, 10_000));

  it('rapid reset: 2000 streams reset in the same write as their HEADERS', async () => {
    const settled = await baseline();
    const before = await openFds();
    const s = await attacker();
    const chunks: Buffer[] = [];
    for (let i = 0; i < 2000; i++) {
      const id = s.nextStreamId();
      chunks.push(
        frame(
          FRAME.HEADERS,
          FLAG.END_STREAM | FLAG.END_HEADERS,
          id,
          getHeaders(i % 2 ? '/media/v/manifest.mpd' : `/media/v/seg-1.m4s?${cmcdQuery(8000)}`),
        ),
        rstStream(id),
      );
    }
    s.write(...chunks);
    await waitFor(() => s.isClosed(), 10_000);
    expect(s.goaway?.code, 'GOAWAY').toBe(ERROR_CODE.ENHANCE_YOUR_CALM);
    await settled();
    console.log(`rapid reset: fds ${before} before, ${await openFds()} after (the issue's probe: 1100 left open)`);
    await expectNormalClientServed();
  });

  it('a zero window kept alive with PINGs is closed after the progress timeout', async () => {
    const settled = await baseline();
    const s = await attacker({ settings: { [SETTING.INITIAL_WINDOW_SIZE]: 0 } });
    for (let i = 0; i < 10; i++) s.get(`/media/v/seg-1.m4s?${cmcdQuery(8000)}`);
    const startedAt = performance.now();
    while (!s.isClosed() && performance.now() - startedAt < 4 * PROGRESS_TIMEOUT_MS) {
      s.write(ping());
      await sleep(250);
    }
    const heldMs = performance.now() - startedAt;
    console.log(`zero window with PINGs: held ${Math.round(heldMs)} ms at a ${PROGRESS_TIMEOUT_MS} ms progress timeout`);
    expect(s.isClosed()).toBe(true);
    expect(heldMs).toBeLessThan(PROGRESS_TIMEOUT_MS * 1.5 + 1000);
    await settled();
    await expectNormalClientServed();
  });

  it('CONTINUATION flood: a header block that never ends', async () => {
    const settled = await baseline();
    const s = await attacker();
    const id = s.nextStreamId();
    const chunks = [frame(FRAME.HEADERS, FLAG.END_STREAM, id, getHeaders('/media/v/manifest.mpd'))];
    for (let i = 0; i < 5000; i++) chunks.push(frame(FRAME.CONTINUATION, 0, id, headerBlock([[`x-flood-${i}`, 'a'.repeat(100)]])));
    s.write(...chunks);
    await waitFor(() => s.isClosed(), 10_000);
    // Never a response for that stream, let alone a 5xx: the session is refused as a whole.
    expect(s.streams.get(id)?.headers ?? 0).toBe(0);
    await settled();
    await expectNormalClientServed();
  });

  it("SETTINGS flood: 20 000 SETTINGS frames, never acknowledging the server's", async () => {
    const settled = await baseline();
    const s = await attacker({ polite: false });
    const one = frame(FRAME.SETTINGS, 0, 0, settingsPayload({ [SETTING.HEADER_TABLE_SIZE]: 4096 }));
    for (let i = 0; i < 20; i++) {
      s.write(...Array.from({ length: 1000 }, () => one));
      await sleep(10);
    }
    // Node acknowledges each (cheap, and read by this client) or gives the session up: either way the
    // session is answered or gone, never left hanging with work queued for it.
    await sleep(500);
    if (!s.isClosed() && s.goaway === undefined) {
      const id = s.get('/media/v/manifest.mpd');
      await waitFor(() => s.streams.get(id)?.endStream === true || s.isClosed(), 10_000);
    }
    await settled();
    await expectNormalClientServed();
  });

  it('an oversized header block (200 KB)', async () => {
    const settled = await baseline();
    const s = await attacker();
    const big = s.nextStreamId();
    s.write(frame(FRAME.HEADERS, FLAG.END_STREAM, big, getHeaders('/media/v/manifest.mpd')));
    const block = headerBlock([['x-big', 'b'.repeat(200_000)]]);
    for (let at = 0; at < block.length; at += 16_384) {
      const last = at + 16_384 >= block.length;
      s.write(frame(FRAME.CONTINUATION, last ? FLAG.END_HEADERS : 0, big, block.subarray(at, at + 16_384)));
    }
    await waitFor(
      () => s.isClosed() || s.goaway !== undefined || s.streams.get(big)?.rstCode !== undefined || (s.streams.get(big)?.headers ?? 0) > 0,
      10_000,
    );
    // Refused (GOAWAY COMPRESSION_ERROR from nghttp2 here; a 431 or a reset would do), never answered with the manifest or a 5xx.
    expect(s.streams.get(big)?.dataBytes ?? 0).toBe(0);
    await settled();
    await expectNormalClientServed();
  });
});

describe('the reference origin under connection abuse', () => {
  beforeEach(() => waitFor(() => origin.pacing.activeResponses === 0, 10_000));

  it('clients that close right after the preface leave no socket behind, on a busy event loop beside a GET flood', async () => {
    const settled = await baseline();
    const before = await openFds();
    const stopBusy = busyLoop(15, 20);
    const flood = await h2Connect({ url: origin.url, cert: tls.cert });
    let flooding = true;
    const flooded = (async () => {
      let n = 0;
      while (flooding) n += (await Promise.all(Array.from({ length: 20 }, () => h2Get(flood, '/media/v/manifest.mpd')))).length;
      return n;
    })();
    const CLIENTS = 300;
    let sessionsOpened = 0;
    const onSession = () => sessionsOpened++;
    origin.server.on('session', onSession);
    const normal = expectNormalClientServed();
    try {
      // TLS, the preface and SETTINGS, then FIN at once: 50 clients per loopback address (under the per-client bound).
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, i) => {
          const socket = await tlsFrom(`127.0.1.${1 + Math.floor(i / 50)}`);
          socket.on('error', () => {}).resume();
          socket.end(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]));
        }),
      );
    } finally {
      flooding = false;
      stopBusy();
    }
    const requests = await flooded;
    flood.close();
    const ratio = await normal;
    await settled();
    origin.server.off('session', onSession);
    console.log(
      `preface then FIN: ${CLIENTS} clients (${sessionsOpened} sessions) beside ${requests} flood requests on a busy loop: fds ${before} before, ${await openFds()} after; a normal client at ${ratio.toFixed(3)}x its rtp meanwhile`,
    );
    expect(sessionsOpened).toBeGreaterThan(CLIENTS / 2);
  });

  it('clients that provoke a connection error (GOAWAY) and leave: their sockets are freed at once, not held', async () => {
    const settled = await baseline();
    const before = await openFds();
    // DATA on stream 0: a connection error, answered with GOAWAY(PROTOCOL_ERROR), after which Node's
    // session reads its socket no more. On Node 20 a bare node:http2 server then holds each socket for
    // good; the origin held them until the 15 s session timeout (the check below waits 10 s).
    const clients = await Promise.all(Array.from({ length: 20 }, () => tlsFrom('127.0.4.1')));
    for (const socket of clients)
      socket
        .on('error', () => {})
        .resume()
        .write(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0), frame(FRAME.DATA, 0, 0, Buffer.from('x'))]));
    await sleep(300);
    const held = (await openFds()) - before;
    for (const socket of clients) socket.destroy();
    const leftAt = performance.now();
    await settled();
    console.log(
      `connection error, then the client leaves: ${held} fds while connected, back to ${await openFds()} (from ${before}) ${Math.round(performance.now() - leftAt)} ms after`,
    );
  });

  it(`a TLS handshake that never starts is dropped after the head timeout (${MEDIA_ORIGIN_SERVER_OPTIONS.headersTimeout} ms), not Node's 120 s`, async () => {
    const settled = await baseline();
    const heldMs = await heldSilentMs('127.0.2.1', MEDIA_ORIGIN_SERVER_OPTIONS.headersTimeout + 3000);
    console.log(`silent TLS client: held ${Math.round(heldMs)} ms`);
    expect(heldMs).toBeGreaterThan(MEDIA_ORIGIN_SERVER_OPTIONS.headersTimeout - 500);
    expect(heldMs).toBeLessThan(MEDIA_ORIGIN_SERVER_OPTIONS.headersTimeout + 2000);
    await settled();
  });

  it(`one address holds at most ${DEFAULT_MAX_CONNECTIONS_PER_CLIENT} connections: the next is refused at once, and a normal client is served at its rtp meanwhile`, async () => {
    const settled = await baseline();
    const held = await Promise.all(Array.from({ length: DEFAULT_MAX_CONNECTIONS_PER_CLIENT }, () => tlsFrom('127.0.3.1')));
    for (const socket of held)
      socket
        .on('error', () => {})
        .resume()
        .write(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]));
    const [refusedMs, ratio] = await Promise.all([heldSilentMs('127.0.3.1', 2000), expectNormalClientServed()]);
    console.log(
      `connections per client: ${DEFAULT_MAX_CONNECTIONS_PER_CLIENT} held, the next closed after ${Math.round(refusedMs)} ms; a normal client at ${ratio.toFixed(3)}x its rtp meanwhile`,
    );
    expect(refusedMs).toBeLessThan(1000);
    expect(
      held.every((s) => !s.destroyed),
      'the connections within the bound stay open',
    ).toBe(true);
    for (const socket of held) socket.destroy();
    await settled();
  });
});

/**
 * h2spec (the HTTP/2 conformance suite, https://github.com/summerwind/h2spec) against the paced media
 * path. A bare node:http2 server (Node 20.20, `createSecureServer` answering 1.5 MB to every request)
 * fails these, all nghttp2's or Node's choices, never the middleware's; the origin may fail no other.
 */
const BARE_NODE_H2SPEC_FAILURES = [
  'http2/5.1: closed: Sends a DATA frame after sending RST_STREAM frame',
  'http2/5.1: closed: Sends a HEADERS frame after sending RST_STREAM frame',
  'http2/5.1: closed: Sends a DATA frame',
  'http2/5.1: closed: Sends a HEADERS frame',
  'http2/5.1.1: Sends stream identifier that is numerically smaller than previous',
  'http2/6.7: Sends a PING frame with ACK',
  'http2/6.9.1: Sends multiple WINDOW_UPDATE frames increasing the flow control window to above 2^31-1',
  'http2/6.9.1: Sends multiple WINDOW_UPDATE frames increasing the flow control window to above 2^31-1 on a stream',
];
const H2SPEC_INSTALL =
  'GOFLAGS=-mod=mod GOBIN=/usr/local/bin go install github.com/summerwind/h2spec/cmd/h2spec@v2.2.1+incompatible (Go is at https://go.dev/dl/; .ci/run does this)';

/** Each test case of an h2spec JUnit report, `package: classname`, and whether it failed. */
function h2specCases(junit: string): { id: string; failed: boolean; skipped: boolean }[] {
  return junit
    .split('<testcase ')
    .slice(1)
    .map((chunk) => {
      const attrs = /package="([^"]*)" classname="([^"]*)"/.exec(chunk);
      const body = chunk.slice(0, chunk.indexOf('</testcase>') >= 0 ? chunk.indexOf('</testcase>') : chunk.indexOf('/>'));
      const id = `${attrs?.[1]}: ${(attrs?.[2] ?? '').replaceAll('&#34;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&')}`;
      return { id, failed: /<(failure|error)/.test(body), skipped: /<skipped/.test(body) };
    });
}

describe('HTTP/2 conformance of the paced media path', () => {
  it("h2spec: no failure beyond a bare node:http2 server's", async () => {
    const settled = await baseline();
    const report = join(dir, 'h2spec.xml');
    const path = `/media/v/conformance.m4s?${cmcdQuery(8000)}`;
    const normal = expectNormalClientServed().catch((err: unknown) => err as Error);
    const run = await new Promise<{ code: number | null; stdout: string; missing: boolean }>((resolve) => {
      execFile(
        'h2spec',
        ['-t', '-k', '-h', '127.0.0.1', '-p', String(origin.port), '-P', path, '-j', report],
        { timeout: 120_000 },
        (err, stdout) =>
          resolve({
            code: err ? ((err as { code?: unknown }).code === 'ENOENT' ? null : 1) : 0,
            stdout,
            missing: (err as { code?: unknown } | null)?.code === 'ENOENT',
          }),
      );
    });
    if (run.missing) throw new Error(`h2spec is not installed: ${H2SPEC_INSTALL}`);
    const ratio = await normal;
    if (ratio instanceof Error) throw ratio;
    console.log(`a normal client during h2spec: ${ratio.toFixed(3)}x its rtp`);
    const cases = h2specCases(readFileSync(report, 'latin1'));
    const failed = cases.filter((c) => c.failed).map((c) => c.id);
    console.log(
      `h2spec on ${path.split('?')[0]} (paced): ${cases.length} tests, ${cases.length - failed.length - cases.filter((c) => c.skipped).length} passed, ${failed.length} failed${failed.length ? `:\n  ${failed.join('\n  ')}` : ''}`,
    );
    expect(cases.length, run.stdout.slice(-2000)).toBeGreaterThanOrEqual(145);
    expect(
      failed.filter((id) => !BARE_NODE_H2SPEC_FAILURES.includes(id)),
      'failures a bare node:http2 server does not have',
    ).toEqual([]);
    await settled();
  }, 150_000);
});

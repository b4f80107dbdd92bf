/**
 * A client that stops reading is dropped once nothing has been acknowledged for the progress
 * timeout, and everything it held is freed: Node's socket, the kernel socket and its buffers (the
 * connection is reset, not left to drain), timers.
 */
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { connectionState, pacedUnsentCapBytes } from '../src/socket/connection-socket.js';
import { readTcpInfo, socketFd } from '../src/socket/socket-options.js';
import { activeResources, bodyBytesFor, cmcdQuery, get, makeMediaDir, serverConnections, startTestOrigin, waitFor } from './helpers.js';
import { connectRaw, request } from './raw-http.js';

const PROGRESS_TIMEOUT_MS = 1000;
const media = makeMediaDir([40000]);
afterAll(() => media.remove());

/** Kernel TCP sockets (any state but LISTEN) whose local port is `port`, from /proc/net/tcp. */
function kernelSockets(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length > 3 && f[1]!.endsWith(`:${hexPort}`) && f[3] !== '0A').length;
}

const CASES = [
  ['kernel', 40000],
  ['userspace', 40000],
  ['kernel', undefined],
] as const;

describe.each(CASES)('a reader that stops, %s pacing, rtp %s', (mechanism, rtp) => {
  it('is reset within the progress timeout and leaves nothing behind', async () => {
    const origin = await startTestOrigin(media.dir, { pacing: mechanism, progressTimeoutMs: PROGRESS_TIMEOUT_MS });
    try {
      const before = activeResources();
      const raw = await connectRaw(origin.port, { receiveBuffer: 16 * 1024 });
      raw.socket.pause();
      const sentAt = performance.now();
      raw.socket.write(request(rtp === undefined ? '/media/test/seg-40000.m4s' : `/media/test/seg-40000.m4s?${cmcdQuery(rtp)}`));
      // The client reads nothing (a paused socket does not even see the reset): watch the server.
      await waitFor(async () => (await serverConnections(origin)) === 0, PROGRESS_TIMEOUT_MS + 5000);
      const elapsed = performance.now() - sentAt;
      expect(elapsed).toBeGreaterThanOrEqual(PROGRESS_TIMEOUT_MS);
      raw.socket.destroy();
      await waitFor(() => raw.closed && origin.pacing.activeResponses === 0);
      expect(kernelSockets(origin.port)).toBe(0);
      const [record] = origin.pacing.records.list();
      expect(record).toMatchObject({ endReason: 'stalled', aborted: true, bytesExact: true });
      expect(record!.bytes).toBeLessThan(bodyBytesFor(40000) / 2);
      expect(record!.bytesWritten).toBeGreaterThanOrEqual(record!.bytes);
      const after = activeResources();
      expect(after.Timeout ?? 0).toBeLessThanOrEqual(before.Timeout ?? 0);
      expect(after.TCPSocketWrap ?? 0).toBeLessThanOrEqual(before.TCPSocketWrap ?? 0);
    } finally {
      await origin.close();
    }
  });
});

describe('the kernel queue of a paced response', () => {
  const RTP = 8000;
  const cap = pacedUnsentCapBytes(RTP);

  it('holds at most the unsent cap for a client that never reads, and lifts it for one that reads', async () => {
    const origin = await startTestOrigin(media.dir, { pacing: 'kernel', progressTimeoutMs: 60_000 });
    const sockets: Socket[] = [];
    origin.server.on('connection', (s: Socket) => sockets.push(s));
    try {
      const raw = await connectRaw(origin.port, { receiveBuffer: 16 * 1024 });
      raw.socket.pause();
      raw.socket.write(request(`/media/test/seg-40000.m4s?${cmcdQuery(RTP)}`));
      await waitFor(() => sockets.length === 1 && connectionState(sockets[0]!).unsentCapBytes !== undefined);
      // Its window shuts within a few segments; what Node could write meanwhile is bounded by the cap.
      await new Promise((r) => setTimeout(r, 500));
      const stalled = readTcpInfo(socketFd(sockets[0]!)!);
      // One TSO packet of slack: the kernel checks the cap before it starts a new one.
      expect(stalled.notsentBytes!).toBeLessThanOrEqual(cap + 64 * 1024);
      expect(connectionState(sockets[0]!).unsentCapBytes).toBe(cap);
      raw.socket.destroy();

      // A client that reads is uncapped once it has acknowledged more than the cap.
      const res = await get(origin, `/media/test/seg-40000.m4s?${cmcdQuery(RTP * 4)}`);
      expect(res.status).toBe(200);
      expect(connectionState(sockets[1]!).unsentCapBytes).toBeUndefined();
    } finally {
      await origin.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import {
  getCongestionControl,
  readTcpInfo,
  sendQueueBytes,
  setCongestionControl,
  setMaxPacingRate,
  socketFd,
  unsentQueueBytes,
} from '../src/socket/socket-options.js';

/** A connected loopback socket pair: the server side is what the origin configures. */
describe('socket options on a real TCP socket', () => {
  let server: Server;
  let client: Socket;
  let serverSide: Socket;
  beforeAll(async () => {
    server = createServer();
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    serverSide = await accepted;
  });
  afterAll(async () => {
    client.destroy();
    serverSide.destroy();
    await new Promise((r) => server.close(r));
  });

  it('reads back SO_MAX_PACING_RATE at tcp_info offset 112, and ESTABLISHED state', () => {
    const fd = socketFd(serverSide)!;
    expect(fd).toBeGreaterThan(0);
    setMaxPacingRate(fd, 1_234_567);
    const info = readTcpInfo(fd);
    expect(info.state).toBe(1);
    expect(info.maxPacingRate).toBe(1_234_567n);
    expect(info.pacingRate).toBeLessThanOrEqual(1_234_567n);
    expect(info.sndMss).toBeGreaterThan(500);
    expect(info.minRttUs).toBeGreaterThan(0);
    setMaxPacingRate(fd, null);
    expect(readTcpInfo(fd).maxPacingRate).toBe(2n ** 64n - 1n);
  });

  it('reads last_ack_recv (offset 56) and the send queue (SIOCOUTQ): an acknowledgement just now, nothing unacknowledged', async () => {
    const fd = socketFd(serverSide)!;
    await new Promise<void>((resolve) => {
      client.once('data', () => resolve());
      serverSide.write(Buffer.alloc(1000));
    });
    await new Promise((r) => setTimeout(r, 50));
    const info = readTcpInfo(fd);
    // Acknowledged about 50 ms ago; the connection's age (seconds, since the handshake) would be far more.
    expect(info.lastAckRecvMs).toBeGreaterThanOrEqual(30);
    expect(info.lastAckRecvMs).toBeLessThan(2000);
    expect(sendQueueBytes(fd)).toBe(0);
    client.pause();
    serverSide.write(Buffer.alloc(10 * 1024 * 1024));
    await new Promise((r) => setTimeout(r, 100));
    // A paused reader: its window fills, and the sender holds what it cannot send.
    expect(sendQueueBytes(fd)).toBeGreaterThan(0);
    // Of which the unsent part (SIOCOUTQNSD, the HTTP/2 send gate's reading) is TCP_INFO's notsent: nothing moves now.
    const unsent = unsentQueueBytes(fd);
    expect(unsent).toBeGreaterThan(0);
    expect(unsent).toBe(readTcpInfo(fd).notsentBytes);
    expect(unsent).toBeLessThanOrEqual(sendQueueBytes(fd));
    client.resume();
  });

  it('sets and reads TCP_CONGESTION', () => {
    const fd = socketFd(serverSide)!;
    setCongestionControl(fd, 'reno');
    expect(getCongestionControl(fd)).toBe('reno');
    setCongestionControl(fd, 'cubic');
    expect(getCongestionControl(fd)).toBe('cubic');
    expect(() => setCongestionControl(fd, 'no-such-cc')).toThrow(/TCP_CONGESTION/);
  });
});

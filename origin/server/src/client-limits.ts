/**
 * What one client (one remote address) may hold of a listener, in the spirit of nginx's `limit_conn`:
 * a connection beyond the bound is refused (closed before a byte is read: no TLS handshake, no
 * request), so one address cannot hold the fds, TLS state and slow-reader buffers of the origin.
 */
import type { Server } from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import type { Socket } from 'node:net';

/**
 * Default connections per remote address and listener. A browser opens at most 6 HTTP/1.1
 * connections to a host (one for h2), so 64 lets ten players behind one NAT each keep a full set,
 * while one attacker's 500 pre-handshake TLS sockets and 1000 dribbling heads (the probe) are
 * cut to 64. Viewers behind a carrier-grade NAT share an address: raise it there.
 */
export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 64;

/** Refuses a remote address's connections beyond `max` (counted while open). */
export function limitConnectionsPerClient(server: Server | Http2SecureServer, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

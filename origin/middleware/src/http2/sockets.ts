/**
 * `releaseHttp2Sockets(server)`: every HTTP/2 session's TCP socket closed once the session is over,
 * whatever ended it. node:http2 leaves two ways for a socket to outlive its session:
 * - a destroyed session (timeout, GOAWAY, error) ends its socket gracefully and waits for the client's
 *   FIN, which it never reads if the session had stopped reading;
 * - a session that sent GOAWAY for a connection error stops reading its socket and is never told that
 *   the client left (h2spec's error cases left 21 sockets open until the session timeout; without
 *   one, for good).
 * A sweep once a second destroys the socket of a session destroyed for a while, and the session and
 * socket of a client whose TCP connection is closed (TCP_INFO state; an HTTP/2 client never half-closes).
 */
import type { Http2SecureServer, Http2Server, Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { wrongType } from '../option-check.js';
import { AckTracker } from '../socket/ack-tracker.js';
import { ConnectionSocket } from '../socket/connection-socket.js';

/** How often sessions are checked, and how long a destroyed session's socket may say goodbye, ms. */
const SWEEP_MS = 1000;
const DESTROYED_GRACE_MS = 2000;

/** Starts the sweep on `server`; it stops when the server closes. Returns a function that stops it. */
export function releaseHttp2Sockets(server: Http2SecureServer | Http2Server): () => void {
  if (typeof (server as Partial<Http2Server> | null)?.on !== 'function') {
    throw wrongType('releaseHttp2Sockets: server', 'a node:http2 server (createSecureServer, createServer)', server);
  }
  const accepted = new Map<string, Socket>();
  const sessions = new Map<Http2Session, { socket: Socket; conn: ConnectionSocket; destroyedAt?: number }>();
  const key = (address: string | undefined, port: number | undefined) => `${address}|${port}`;
  server.on('connection', (socket: Socket) => {
    const k = key(socket.remoteAddress, socket.remotePort);
    accepted.set(k, socket);
    socket.once('close', () => accepted.delete(k));
  });
  // The session's own socket is a proxy that refuses destroy(): its TCP socket is found by remote port.
  server.on('session', (session: Http2Session) => {
    const socket = accepted.get(key(session.socket.remoteAddress, session.socket.remotePort));
    if (!socket) return;
    sessions.set(session, { socket, conn: new ConnectionSocket(socket) });
    socket.once('close', () => sessions.delete(session));
  });
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [session, entry] of sessions) {
      if (session.destroyed) {
        entry.destroyedAt ??= now;
        if (now - entry.destroyedAt >= DESTROYED_GRACE_MS) entry.socket.destroy();
        continue;
      }
      // Without TCP_INFO (not Linux) the session's own timeout is all there is.
      if (!AckTracker.peerClosedNow(entry.conn)) continue;
      session.destroy();
      entry.socket.destroy();
    }
  }, SWEEP_MS).unref();
  const stop = () => clearInterval(sweep);
  server.once('close', stop);
  return stop;
}

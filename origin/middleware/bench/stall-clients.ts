/**
 * Stalled readers, in a process of their own (stalled-readers.ts starts it with a raised open-file limit):
 * argv[2] is `{ host, port, count, path }` as JSON. Opens `count` connections, sends one GET on each and never
 * reads: each socket is paused before it connects, so the kernel's receive buffer fills and the window closes.
 * Sends `{ opened, failed, nofile }` once every connection is up, and closes them all on `'close'`.
 */
import { connect, type Socket } from 'node:net';
import { openFileLimit } from './process-limits.js';

const { host, port, count, path } = JSON.parse(process.argv[2] ?? '{}') as { host?: string; port?: number; count?: number; path?: string };
if (!host || !port || !count || !path || !process.send)
  throw new Error('usage: spawned by stalled-readers.ts with { host, port, count, path }');
const send = process.send.bind(process);

const sockets: Socket[] = [];
let failed = 0;
await Promise.all(
  Array.from(
    { length: count },
    () =>
      new Promise<void>((resolve) => {
        const socket = connect({ host, port });
        socket.pause();
        sockets.push(socket);
        socket.once('connect', () => {
          socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`);
          resolve();
        });
        // A reset seen here (rare: a paused socket reads nothing) only counts; the benchmark watches the server.
        socket.on('error', () => {
          failed++;
          resolve();
        });
      }),
  ),
);
send({ opened: sockets.length - failed, failed, nofile: openFileLimit() });
process.on('message', (msg) => {
  if (msg !== 'close') return;
  for (const s of sockets) s.destroy();
  process.exit(0);
});

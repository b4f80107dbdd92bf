/**
 * The lab's Varnish edge, run inside the server namespace: origin/varnish's varnishd fixture (sammy.vcl,
 * its own -n work dir under $TMPDIR) listening where the players connect, in front of the lab server on
 * the namespace's loopback. Varnish paces each client socket at its CMCD rtp and strips CMCD before the
 * backend, so the backend hop is unpaced.
 *
 *   edge-varnish --host IP --port P --backend-port B
 *
 * Prints `{"ready":true,"varnishd":PID}` once varnishd accepts; on SIGTERM/SIGINT stops varnishd and
 * removes its work dir before exiting. (The bench also stops this process's whole group, varnishd
 * included, and checks that PID is gone.)
 */
import { startVarnish } from '@sammy/varnish';
import { arg } from './args.js';

const varnish = await startVarnish({
  host: arg('host'),
  port: Number(arg('port')),
  backendHost: '127.0.0.1',
  backendPort: Number(arg('backend-port')),
});
console.log(JSON.stringify({ ready: true, varnishd: varnish.pid, url: varnish.url }));

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  // Exit even if varnishd hangs: close() escalates to SIGKILL after 5 s, this after 8 s.
  setTimeout(() => process.exit(1), 8000).unref();
  void varnish.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

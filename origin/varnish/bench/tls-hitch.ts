/**
 * `npm run bench:tls -w @sammy/varnish`: what Varnish's socket pace does to a TLS viewer when hitch
 * terminates TLS in front of it. hitch owns the viewer's socket and copies what Varnish sends it; the pace
 * is set on Varnish's socket, i.e. hitch's backend connection. Measures, with a TLS client through hitch
 * and a plain client straight to Varnish (cache hits, warm connections, loopback):
 *   - the rate the client receives and how its bytes arrive (reads < 1 ms apart summed as bursts);
 *   - the kernel's pacing state on each server-side socket (ss): Varnish's, and hitch's to the viewer.
 * Needs hitch (`apt-get install hitch`) and openssl. Options: --kbps <n> (default 8000), --seconds <n> (default 3).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { kbpsToBytesPerSecond } from 'sammy-pacing-protocol';
import { startVarnish } from '../src/varnishd.js';
import { cmcdQuery, socketPacing, startMediaOrigin } from '../test/edge-fixture.js';
import { burstsOf } from '@sammy/test-support';

const { values } = parseArgs({ options: { kbps: { type: 'string', default: '8000' }, seconds: { type: 'string', default: '3' } } });
const KBPS = Number(values.kbps);
const SECONDS = Number(values.seconds);
const BYTES = Math.round(kbpsToBytesPerSecond(KBPS) * SECONDS);

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

interface Sample {
  reads: Array<[number, number]>;
  localPort: number;
}

function fetchSample(url: string, agent: HttpAgent | HttpsAgent): Promise<Sample> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const reads: Array<[number, number]> = [];
    const req = request(url, { agent, rejectUnauthorized: false }, (res) => {
      const localPort = res.socket.localPort ?? 0;
      res.on('data', (d: Buffer) => reads.push([performance.now() - t0, d.length]));
      res.on('end', () => resolve({ reads, localPort }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function describe(name: string, { reads }: Sample): void {
  const total = reads.reduce((s, [, n]) => s + n, 0);
  const end = reads.at(-1)![0];
  const bursts = burstsOf(reads);
  bursts.sort((a, b) => a - b);
  const p = (q: number) => (bursts[Math.min(bursts.length - 1, Math.floor(q * bursts.length))]! / 1000).toFixed(1);
  console.log(
    `${name}: ${((total * 8) / end / 1000).toFixed(2)} Mbps (asked ${KBPS / 1000}); bursts ${bursts.length}, p50 ${p(0.5)} KB, p99 ${p(0.99)} KB, max ${(bursts.at(-1)! / 1000).toFixed(1)} KB`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'sammy-hitch-'));
const media = await startMediaOrigin([]);
writeFileSync(join(media.mediaDir, 'test', 'tls.m4s'), randomBytes(BYTES));
const varnish = await startVarnish({ backendPort: media.origin.port });
const pem = join(dir, 'cert.pem');
const ssl = spawnSync('sh', [
  '-c',
  `openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -keyout ${dir}/key.pem -out ${dir}/crt.pem 2>/dev/null && cat ${dir}/key.pem ${dir}/crt.pem > ${pem}`,
]);
if (ssl.status !== 0) throw new Error('openssl could not make a test certificate');
const hitchPort = await freePort();
const hitch = spawn(
  'hitch',
  [
    `--frontend=[127.0.0.1]:${hitchPort}`,
    `--backend=[127.0.0.1]:${varnish.port}`,
    '--workers=1',
    '--daemon=off',
    '--quiet=on',
    // hitch refuses to run its workers as root.
    ...(process.getuid?.() === 0 ? ['--user=nobody'] : []),
    pem,
  ],
  {
    stdio: ['ignore', 'inherit', 'inherit'],
  },
);
try {
  for (let i = 0; i < 100; i++) {
    if (hitch.exitCode !== null) throw new Error(`hitch exited (${hitch.exitCode})`);
    if (spawnSync('ss', ['-tlnH', `( sport = :${hitchPort} )`], { encoding: 'utf8' }).stdout.trim()) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  console.log(`One ${(BYTES / 1e6).toFixed(2)} MB response (${SECONDS} s at ${KBPS / 1000} Mbps), cache hit, warm connection, loopback\n`);
  const path = `/media/test/tls.m4s?${cmcdQuery(KBPS)}`;
  for (const [name, base, agent] of [
    ['plain HTTP straight to Varnish', varnish.url, new HttpAgent({ keepAlive: true, maxSockets: 1 })],
    ['TLS through hitch → Varnish', `https://127.0.0.1:${hitchPort}`, new HttpsAgent({ keepAlive: true, maxSockets: 1 })],
  ] as const) {
    await fetchSample(`${base}/media/test/warm.m4s`, agent);
    await fetchSample(`${base}/media/test/tls.m4s`, agent);
    const sample = await fetchSample(`${base}${path}`, agent);
    describe(name, sample);
    if (base.startsWith('https:')) {
      // hitch's socket to this client, and Varnish's socket to hitch (the one that carries the pace).
      const viewer = socketPacing(hitchPort, sample.localPort);
      console.log(
        `  hitch → viewer socket: pacing_rate ${viewer.pacingRateBps ?? '?'} bps, max_pacing_rate ${viewer.maxPacingRateBps ?? 'none (unpaced)'}`,
      );
      const ss = spawnSync('ss', ['-tinH', 'state', 'established', `( sport = :${varnish.port} )`], { encoding: 'utf8' });
      const m = / pacing_rate (\d+)bps\/(\d+)bps/.exec(ss.stdout.replace(/\s+/g, ' '));
      console.log(`  Varnish → hitch socket: max_pacing_rate ${m ? `${m[2]} bps (${(Number(m[2]) / 1e6).toFixed(2)} Mbps)` : 'none'}`);
    }
    agent.destroy();
  }
} finally {
  hitch.kill('SIGTERM');
  await varnish.close();
  await media.remove();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * `npm start` on a busy port: one line naming the port and how to choose another (environment variable
 * and flag), no stack trace; the listener that could bind keeps serving; with nothing bound, a non-zero exit.
 * Every port here is one this test picked free and then occupied itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { get, spawnCli, waitFor, type CliRun } from './helpers.js';

/** A loopback listener on a free port, standing in for whatever else a user runs there. */
async function occupyFreePort(): Promise<{ port: number; server: Server }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return { port: (server.address() as { port: number }).port, server };
}

async function freePort(): Promise<number> {
  const { port, server } = await occupyFreePort();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Lines of output, blank ones dropped. */
function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim().length > 0);
}

describe('the CLI on a busy port', () => {
  let media: string;
  const occupied: Server[] = [];
  let run: CliRun | undefined;

  beforeAll(async () => {
    media = await mkdtemp(join(tmpdir(), 'sammy-busy-port-'));
  });
  afterEach(async () => {
    await run?.stop();
    run = undefined;
    await Promise.all(occupied.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });
  afterAll(() => rm(media, { recursive: true, force: true }));

  async function occupy(): Promise<number> {
    const { port, server } = await occupyFreePort();
    occupied.push(server);
    return port;
  }

  it('both ports taken: one line naming both ports, the variables and the flags; exit code 1', async () => {
    const [http, https] = [await occupy(), await occupy()];
    run = spawnCli(['--port', String(http), '--https-port', String(https), '--media-dir', media]);
    expect(await run.exited).toBe(1);
    const said = lines(run.stderr());
    expect(said, run.stderr()).toHaveLength(1);
    const [line] = said;
    expect(line).toBe(
      `sammy-origin: ports ${https} (HTTPS) and ${http} (HTTP) are in use; choose others with HTTPS_PORT=${https + 1} PORT=${http + 1} npm start, or npm start -- --https-port ${https + 1} --port ${http + 1}`,
    );
    expect(run.stdout()).not.toMatch(/serving on/);
  });

  it('the HTTPS port taken (set by HTTPS_PORT): says so in one line and keeps serving plain HTTP (set by PORT)', async () => {
    const https = await occupy();
    const http = await freePort();
    run = spawnCli(['--media-dir', media], { HTTPS_PORT: String(https), PORT: String(http) });
    await waitFor(() => /serving on http:\/\//.test(run!.stdout()) && run!.stderr().length > 0, 30_000);
    expect(lines(run.stderr())).toEqual([
      `sammy-origin: port ${https} (HTTPS) is in use; choose another with HTTPS_PORT=${https + 1} npm start, or npm start -- --https-port ${https + 1}`,
    ]);
    expect(run.stdout()).toContain(`serving on http://localhost:${http}/`);
    expect(run.stdout()).not.toMatch(/serving on https:/);
    // No certificate hint for the HTTPS listener that did not start (it named the HTTP URL with --cacert).
    expect(run.stdout()).not.toMatch(/certificate|--cacert/);
    // Still running, and answering.
    expect((await get({ url: `http://127.0.0.1:${http}` }, '/')).status).toBe(200);
  });

  it('the HTTP port taken: HTTPS keeps serving', async () => {
    const http = await occupy();
    const https = await freePort();
    run = spawnCli(['--port', String(http), '--https-port', String(https), '--media-dir', media]);
    await waitFor(() => /serving on https:\/\//.test(run!.stdout()) && run!.stderr().length > 0, 30_000);
    expect(lines(run.stderr())).toEqual([
      `sammy-origin: port ${http} (HTTP) is in use; choose another with PORT=${http + 1} npm start, or npm start -- --port ${http + 1}`,
    ]);
    expect(run.stdout()).toContain(`serving on https://localhost:${https}/`);
    // The certificate hint's curl names the HTTPS listener, the one its --cacert is for.
    await waitFor(() => /curl --cacert/.test(run!.stdout()), 5000);
    expect(run.stdout()).toMatch(new RegExp(`curl --cacert \\S+ https://localhost:${https}/\n`));
  });

  it('both ports free: the curl hint names HTTPS, and the metrics line the first listener', async () => {
    const [http, https] = [await freePort(), await freePort()];
    run = spawnCli(['--port', String(http), '--https-port', String(https), '--media-dir', media]);
    await waitFor(() => /delivery records/.test(run!.stdout()), 30_000);
    expect(run.stdout()).toMatch(new RegExp(`curl --cacert \\S+ https://localhost:${https}/\n`));
    expect(run.stdout()).toContain(`Prometheus metrics at https://localhost:${https}/metrics`);
  });
});

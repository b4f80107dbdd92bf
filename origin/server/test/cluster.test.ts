/**
 * `sammy-origin --workers 2`: two worker processes (node:cluster) serve one port, real sockets. Both serve (a
 * worker in slot s of N numbers its records s + 1 mod N, so a response's Server-Timing id says which one served
 * it); one /metrics scrape, whichever worker it reaches, counts both workers' responses; every worker's records list
 * every response; a worker killed is replaced, the port keeps answering, and ids stay unique.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS_PATH } from 'sammy-pacing-express';
import { RECORDS_PATH, type DeliveryRecord } from 'sammy-pacing-protocol';
import { cmcdQuery, get, spawnCli, waitFor, type CliRun } from './helpers.js';

const SEGMENT = '/media/v/seg-1.m4s';
let media: string;
let run: CliRun;
let origin: { url: string };

/** The worker processes: the primary's children. */
function workerPids(primary: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(primary)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there are none
  }
}

/** A paced segment on a connection of its own; its record id from Server-Timing. */
async function fetchSegment(): Promise<number> {
  const res = await get(origin, `${SEGMENT}?${cmcdQuery(8000)}`);
  expect(res.status).toBe(200);
  expect(res.body.length).toBe(200_000);
  const id = /sammy-id;desc=(\d+)/.exec(String(res.headers['server-timing']))?.[1];
  expect(id, String(res.headers['server-timing'])).toBeDefined();
  return Number(id);
}

function responsesCounted(text: string): number {
  return [...text.matchAll(/^sammy_responses_total\{[^}]*end_reason="delivered"[^}]*\} (\d+)$/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

async function recordIds(): Promise<number[]> {
  const res = await get(origin, RECORDS_PATH);
  expect(res.status).toBe(200);
  const body = JSON.parse(res.body.toString()) as DeliveryRecord[] | { records: DeliveryRecord[] };
  return (Array.isArray(body) ? body : body.records).map((r) => r.id).sort((a, b) => a - b);
}

beforeAll(async () => {
  media = mkdtempSync(join(tmpdir(), 'sammy-cluster-'));
  mkdirSync(join(media, 'v'));
  writeFileSync(join(media, 'v', 'seg-1.m4s'), Buffer.alloc(200_000, 1));
  run = spawnCli(['--workers', '2', '--port', '0', '--no-https', '--media-dir', media]);
  await waitFor(() => /share these ports/.test(run.stdout()), 60_000);
  const url = /serving on (http:\/\/localhost:\d+)\//.exec(run.stdout())?.[1];
  expect(url, run.stdout()).toBeDefined();
  origin = { url: url!.replace('localhost', '127.0.0.1') };
});
afterAll(async () => {
  await run?.stop();
  rmSync(media, { recursive: true, force: true });
});

describe('the reference server on two workers', () => {
  let served: number[] = [];

  it('prints its start-up lines once, for the cluster', () => {
    expect(run.stdout().match(/serving on/g)).toHaveLength(1);
    expect(run.stdout()).toContain('2 workers (node:cluster) share these ports');
    expect(run.stderr()).not.toMatch(/error|exited/i);
  });

  it('both workers serve the one port', async () => {
    served = [];
    for (let i = 0; i < 8; i++) served.push(await fetchSegment());
    expect(new Set(served).size).toBe(8);
    // Slot 0 numbers its records 1, 3, 5 …, slot 1 2, 4, 6 …: both appear.
    expect(new Set(served.map((id) => id % 2))).toEqual(new Set([0, 1]));
    expect(workerPids(run.pid)).toHaveLength(2);
  });

  it('one /metrics scrape, whichever worker answers it, counts every worker’s responses', async () => {
    for (let i = 0; i < 4; i++) {
      let text = '';
      await waitFor(async () => {
        text = (await get(origin, METRICS_PATH)).body.toString();
        return responsesCounted(text) === served.length;
      }, 10_000).catch(() => undefined);
      expect(responsesCounted(text), text).toBe(served.length);
      // The process figures are both workers' too: two processes' open fds summed, and the pacing gauge at rest.
      expect(text).toMatch(/^process_open_fds \d+/m);
      expect(text).toMatch(/^sammy_paced_responses_active 0$/m);
    }
  });

  it('every worker’s records list every response', async () => {
    for (let i = 0; i < 4; i++) {
      await waitFor(async () => (await recordIds()).length === served.length, 5000).catch(() => undefined);
      expect(await recordIds()).toEqual([...served].sort((a, b) => a - b));
    }
  });

  it('a worker that dies is replaced; the port keeps serving, record ids stay unique', async () => {
    const [victim, survivor] = workerPids(run.pid);
    expect(victim).toBeGreaterThan(0);
    process.kill(victim!, 'SIGKILL');
    // Once the primary knows (a connection it hands over in the instant the worker dies is lost with it: node:cluster's
    // round-robin), the survivor serves while the replacement starts.
    await waitFor(() => /exited \(SIGKILL\); starting another/.test(run.stderr()), 10_000);
    const during = [await fetchSegment(), await fetchSegment()];
    await waitFor(() => {
      const now = workerPids(run.pid);
      return now.length === 2 && !now.includes(victim!) && now.includes(survivor!);
    }, 30_000);
    const after: number[] = [];
    // The replacement is up once it has served: both parities again.
    await waitFor(async () => {
      after.push(await fetchSegment());
      return new Set(after.map((id) => id % 2)).size === 2;
    }, 30_000);
    const all = [...served, ...during, ...after];
    expect(new Set(all).size, `ids ${all.join(',')}`).toBe(all.length);
    // The replacement started with the records so far: whichever worker answers, all are there.
    // (A record reaches the other worker one IPC hop after its response ends: waited for, then checked.)
    for (let i = 0; i < 4; i++) {
      await waitFor(async () => (await recordIds()).length === all.length, 5000).catch(() => undefined);
      expect(await recordIds()).toEqual([...all].sort((a, b) => a - b));
    }
    // A new Node process starting on a loaded machine: its waits above add up to more than the default 30 s.
  }, 90_000);

  it('a bad --workers is refused with what it takes, before anything starts', async () => {
    for (const bad of ['0', '1.5', 'many']) {
      const r = spawnCli(['--workers', bad, '--port', '0', '--no-https', '--media-dir', media]);
      expect(await r.exited).toBe(2);
      expect(r.stderr()).toContain(`--workers must be a positive integer or auto, got "${bad}"`);
      expect(r.stdout()).not.toMatch(/serving on/);
    }
  });

  it('a busy port: one line for the cluster (not one per worker), exit code 1', async () => {
    const port = new URL(origin.url).port;
    const r = spawnCli(['--workers', '2', '--port', port, '--no-https', '--media-dir', media]);
    expect(await r.exited).toBe(1);
    expect(
      r
        .stderr()
        .split('\n')
        .filter((l) => l.startsWith('sammy-origin:')),
    ).toEqual([
      `sammy-origin: port ${port} (HTTP) is in use; choose another with PORT=${Number(port) + 1} npm start, or npm start -- --port ${Number(port) + 1}`,
    ]);
    expect(r.stdout()).not.toMatch(/serving on/);
  });

  it('SIGTERM to the primary closes every worker and exits 0', async () => {
    const pids = workerPids(run.pid);
    expect(await run.stop()).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});

/**
 * The reference server's /metrics: under its own names only (the records' host rule), counting what it served,
 * with the process's own figures beside; off with `metrics: false` or `--no-metrics`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS_PATH } from 'sammy-pacing-express';
import { cmcdQuery, get, spawnCli, startTestOrigin, waitFor } from './helpers.js';

let media: string;
beforeAll(() => {
  media = mkdtempSync(join(tmpdir(), 'sammy-metrics-'));
  mkdirSync(join(media, 'v'));
  writeFileSync(join(media, 'v', 'seg-1.m4s'), Buffer.alloc(20_000, 1));
});
afterAll(() => rmSync(media, { recursive: true, force: true }));

describe('metrics on the reference server', () => {
  it('at /metrics under its own names only, counting what it served, with the process figures beside', async () => {
    const origin = await startTestOrigin(media);
    try {
      await get(origin, `/media/v/seg-1.m4s?${cmcdQuery(3000)}`);
      await get(origin, `/media/v/seg-1.m4s?${cmcdQuery('abc')}`);
      let text = '';
      await waitFor(async () => {
        text = (await get(origin, METRICS_PATH)).body.toString();
        return /sammy_responses_total\{mechanism="(kernel|userspace)",end_reason="delivered",http_version="1.1"\} 1\n/.test(text);
      });
      expect(text).toContain('sammy_rtp_ignored_total{reason="rtp_not_a_number"} 1');
      expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
      expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
      const port = new URL(origin.url).port;
      for (const host of ['attacker.example', `192.0.2.1:${port}`]) {
        const res = await get(origin, METRICS_PATH, { headers: { Host: host } });
        expect(res.status, host).toBe(403);
        expect(res.body.toString()).not.toContain('sammy_');
      }
    } finally {
      await origin.close();
    }
  });

  it('none when told (metrics: false)', async () => {
    const origin = await startTestOrigin(media, { metrics: false });
    try {
      expect(origin.pacing.metrics).toBeUndefined();
      expect((await get(origin, METRICS_PATH)).status).toBe(404);
    } finally {
      await origin.close();
    }
  });

  it('--no-metrics turns /metrics off on the CLI', async () => {
    const run = spawnCli(['--port', '0', '--no-https', '--media-dir', media, '--no-metrics']);
    try {
      await waitFor(() => /serving on http:\/\/\S+/.test(run.stdout()), 15_000);
      const url = /serving on (http:\/\/\S+?)\/?\s/.exec(run.stdout())![1]!.replace('localhost', '127.0.0.1');
      expect((await get({ url }, METRICS_PATH)).status).toBe(404);
      expect(run.stdout()).not.toContain('Prometheus metrics at');
    } finally {
      await run.stop();
    }
  });
});

/**
 * The Grafana dashboard beside the server, checked by Grafana's own schema (grafana/dashboard.ts
 * `satisfies` @grafana/schema's `Dashboard`: `npm test` type-checks it), the JSON to import being
 * that, and by what it queries: every metric its PromQL names is one a running origin's /metrics
 * really exports, and every pacing metric has a panel.
 */
import type { Panel, RowPanel } from '@grafana/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { METRICS_PATH } from 'sammy-pacing-express';
import { dashboard } from '../grafana/dashboard.js';
import type { RunningOrigin } from '../src/server.js';
import { cmcdQuery, get, startTestOrigin } from './helpers.js';

const panels = (dashboard.panels ?? []) as Array<Panel | RowPanel>;
const graphs = panels.filter((p): p is Panel => p.type !== 'row');

/** Metric names a PromQL expression reads (identifiers followed by `{`, `[` or a space/paren, not functions or labels). */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\b((?:sammy|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]!);
}

let dir: string;
let origin: RunningOrigin;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sammy-grafana-'));
  mkdirSync(join(dir, 'v'));
  writeFileSync(join(dir, 'v', 'seg.m4s'), Buffer.alloc(600_000, 1));
  origin = await startTestOrigin(dir);
});
afterAll(async () => {
  await origin.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Grafana dashboard', () => {
  it('the JSON to import is the typed dashboard (npm run grafana -w @sammy/origin-server writes it)', () => {
    const json = readFileSync(new URL('../grafana/sammy-origin-dashboard.json', import.meta.url), 'utf8');
    expect(JSON.parse(json)).toEqual(dashboard);
  });

  it('has unique panel ids, panels inside a 24-column grid, a Prometheus datasource variable', () => {
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels) {
      const { x, w } = p.gridPos!;
      expect(x + w, p.title).toBeLessThanOrEqual(24);
    }
    expect(dashboard.templating?.list?.find((v) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(graphs.length).toBeGreaterThanOrEqual(12);
  });

  it('queries only metrics the origin exports, and every pacing metric it exports', async () => {
    // A paced response, an unpaced one and an ignored rtp, so the labelled series exist.
    await get(origin, `/media/v/seg.m4s?${cmcdQuery(8000)}`);
    await get(origin, `/media/v/seg.m4s?${cmcdQuery('abc')}`);
    const text = (await get(origin, METRICS_PATH)).body.toString();
    const exported = new Set(
      [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
        type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name!],
      ),
    );
    const queried = new Set(
      graphs.flatMap((p) => (p.targets ?? []).flatMap((t) => metricsIn(String((t as { expr?: string }).expr ?? '')))),
    );
    for (const name of queried) expect(exported.has(name), `${name} is not exported`).toBe(true);
    const pacing = [...text.matchAll(/^# TYPE (sammy_\S+) (\S+)$/gm)].map(([, name, type]) =>
      type === 'histogram' ? `${name}_bucket` : name!,
    );
    for (const name of pacing) expect(queried.has(name), `${name} has no panel`).toBe(true);
  });
});

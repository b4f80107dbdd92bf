/**
 * sammy.vcl held to sammy-pacing-protocol (VCL cannot import it, so this is where the single source of
 * truth is enforced), and compiled by the real varnishd (which fails with an install hint when missing).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CONGESTION_CONTROL_HEADER,
  CONGESTION_CONTROLS,
  DEFAULT_MAX_PACE_KBPS,
  DEFAULT_MIN_PACE_KBPS,
  PACING_MECHANISMS,
  SERVER_TIMING_METRICS,
} from 'sammy-pacing-protocol';
import { findVarnish, renderVcl, SAMMY_VCL } from '../src/varnishd.js';

const SOURCE = readFileSync(SAMMY_VCL, 'utf8');
/** The VCL without comment lines, so prose never counts as code. */
const CODE = SOURCE.split('\n')
  .filter((line) => !/^\s*(#|\/\/)/.test(line))
  .join('\n');
const STRING_LITERALS = [...CODE.matchAll(/\{"([\s\S]*?)"\}|"([^"\n]*)"/g)].map((m) => m[1] ?? m[2] ?? '');

describe('sammy.vcl agrees with sammy-pacing-protocol', () => {
  it('emits Server-Timing only under names in SERVER_TIMING_METRICS (those the vmod can report)', () => {
    const emitted = new Set(
      STRING_LITERALS.flatMap((s) => [...s.matchAll(/(?:^|[\s,])([A-Za-z][\w-]*);(?:dur|desc)=/g)].map((m) => m[1]!)),
    );
    const allowed = Object.values(SERVER_TIMING_METRICS) as string[];
    expect([...emitted].filter((name) => !allowed.includes(name))).toEqual([]);
    const m = SERVER_TIMING_METRICS;
    expect([...emitted].sort()).toEqual([m.requestedRtp, m.appliedPace, m.congestionControl, m.rtt].sort());
  });

  it('labels the applied pace with a known pacing mechanism (varnish when paced, none when not)', () => {
    const descs = new Set(STRING_LITERALS.flatMap((s) => [...s.matchAll(/;desc=([a-z]+)/g)].map((m) => m[1]!)));
    expect([...descs].sort()).toEqual(['none', 'varnish']);
    for (const d of descs) expect(PACING_MECHANISMS).toContain(d);
  });

  it('defaults to protocol’s minimum and maximum pace', () => {
    expect(CODE).toContain(`var.global_set("min_pace_kbps", "${DEFAULT_MIN_PACE_KBPS}")`);
    expect(CODE).toContain(`var.global_set("max_pace_kbps", "${DEFAULT_MAX_PACE_KBPS}")`);
    expect(CODE).toContain(`std.integer(var.global_get("min_pace_kbps"), ${DEFAULT_MIN_PACE_KBPS})`);
    expect(CODE).toContain(`std.integer(var.global_get("max_pace_kbps"), ${DEFAULT_MAX_PACE_KBPS})`);
  });

  it('allows exactly protocol’s congestion controls, from protocol’s header', () => {
    const allow = /var\.get\("cc"\) ~ "\^\(([a-z|]+)\)\$"/.exec(CODE)?.[1];
    expect(allow?.split('|').sort()).toEqual([...CONGESTION_CONTROLS].sort());
    expect(CODE).toContain(`req.http.${CONGESTION_CONTROL_HEADER}`);
    expect(CODE).toContain(`unset bereq.http.${CONGESTION_CONTROL_HEADER}`);
  });
});

describe('sammy.vcl under varnishd', () => {
  it('compiles (varnishd -C), with the backend the fixture substitutes', () => {
    const { varnishd } = findVarnish();
    const dir = mkdtempSync(join(tmpdir(), 'sammy-vcl-compile-'));
    try {
      const file = join(dir, 'sammy.vcl');
      writeFileSync(file, renderVcl('127.0.0.1', 18080));
      const r = spawnSync(varnishd, ['-C', '-j', 'none', '-n', dir, '-f', file], { encoding: 'utf8' });
      expect(r.status, r.stderr.slice(-2000)).toBe(0);
      expect(readFileSync(file, 'utf8')).toContain('backend default { .host = "127.0.0.1"; .port = "18080"; }');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

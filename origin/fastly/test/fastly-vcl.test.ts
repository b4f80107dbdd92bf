/**
 * The Fastly VCL (origin/fastly/main.vcl): held to sammy-pacing-protocol (VCL cannot import it, so this
 * is where the single source of truth is enforced), linted and unit-tested with the real falco.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CMCD_OBJECT_TYPES,
  CONNECTION_PACE_REASONS,
  CONGESTION_CONTROL_HEADER,
  CONGESTION_CONTROLS,
  DEFAULT_MAX_PACE_KBPS,
  FASTLY_MIN_PACE,
  KBPS_PER_FASTLY_PACE_UNIT,
  MEDIA_OBJECT_TYPES,
  PACING_MECHANISMS,
  SERVER_TIMING_METRICS,
  SHARED_CONNECTION_IDLE_MS,
} from 'sammy-pacing-protocol';

const FASTLY_DIR = fileURLToPath(new URL('../', import.meta.url));
const TESTS_DIR = join(FASTLY_DIR, 'tests');
const BUILD_FALCO = join(FASTLY_DIR, 'scripts', 'build-falco.sh');
const VCL_SOURCE = readFileSync(join(FASTLY_DIR, 'main.vcl'), 'utf8');

/** The VCL without comment lines, so prose never counts as code. */
const VCL_CODE = VCL_SOURCE.split('\n')
  .filter((line) => !/^\s*(#|\/\/)/.test(line))
  .join('\n');

/** Every string literal in the code ("..." and {"..."}). */
const STRING_LITERALS = [...VCL_CODE.matchAll(/\{"([\s\S]*?)"\}|"([^"\n]*)"/g)].map((m) => m[1] ?? m[2] ?? '');

function tableEntries(name: string): Map<string, string> {
  const body = new RegExp(`^table ${name}(?: [A-Z]+)? \\{([\\s\\S]*?)^\\}`, 'm').exec(VCL_CODE)?.[1];
  if (body === undefined) throw new Error(`main.vcl has no table ${name}`);
  return new Map([...body.matchAll(/"([^"]+)":\s*("?)([^",\s]+)\2\s*,/g)].map((m) => [m[1]!, m[3]!]));
}

describe('main.vcl agrees with sammy-pacing-protocol', () => {
  const pacing = tableEntries('sammy_pacing');

  it('emits Server-Timing only under the names in SERVER_TIMING_METRICS, and all of them but the record id', () => {
    const emitted = new Set(
      STRING_LITERALS.flatMap((s) => [...s.matchAll(/(?:^|[\s,])([A-Za-z][\w-]*);(?:dur|desc)=/g)].map((m) => m[1]!)),
    );
    // `sammy-id` names a delivery record, which only an origin running the middleware keeps: the edge has none.
    const allowed = (Object.values(SERVER_TIMING_METRICS) as string[]).filter((name) => name !== SERVER_TIMING_METRICS.recordId);
    expect([...emitted].filter((name) => !allowed.includes(name))).toEqual([]);
    expect([...emitted].sort()).toEqual([...allowed].sort());
  });

  it('labels the applied pace with a known pacing mechanism (fastly when paced, none when not)', () => {
    const descs = new Set(STRING_LITERALS.flatMap((s) => [...s.matchAll(/;desc=([a-z]+)/g)].map((m) => m[1]!)));
    expect([...descs].sort()).toEqual(['fastly', 'none']);
    for (const d of descs) expect(PACING_MECHANISMS).toContain(d);
  });

  it('uses Fastly’s floor and the kbps-per-KB/s factor from protocol', () => {
    expect(Number(pacing.get('fastly_min_pace'))).toBe(FASTLY_MIN_PACE);
    expect(Number(pacing.get('kbps_per_pace_unit'))).toBe(KBPS_PER_FASTLY_PACE_UNIT);
  });

  it('ships protocol’s default maximum pace (edit the table, and this expectation, to deploy another)', () => {
    expect(Number(pacing.get('max_pace_kbps'))).toBe(DEFAULT_MAX_PACE_KBPS);
  });

  it('falls back to the table’s own values wherever it reads the table', () => {
    const lookups = [...VCL_CODE.matchAll(/table\.lookup_integer\(sammy_pacing, "(\w+)", (-?\d+)\)/g)];
    expect(lookups.length).toBeGreaterThan(0);
    for (const [, key, fallback] of lookups) {
      // congestion_control_enabled falls back to off: a missing entry must not enable it.
      const expected = key === 'congestion_control_enabled' ? '0' : pacing.get(key!);
      expect({ key, fallback }).toEqual({ key, fallback: expected });
    }
  });

  it('treats a shared connection as idle after protocol’s SHARED_CONNECTION_IDLE_MS', () => {
    expect(Number(pacing.get('shared_connection_idle_ms'))).toBe(SHARED_CONNECTION_IDLE_MS);
  });

  it('records exactly protocol’s connection-pace reasons in Sammy-Pace-Reason', () => {
    const written = new Set([...VCL_CODE.matchAll(/set req\.http\.Sammy-Pace-Reason = "([^"]*)";/g)].map((m) => m[1]!));
    expect([...written].sort()).toEqual([...CONNECTION_PACE_REASONS].sort());
  });

  it('reads exactly protocol’s CMCD object types', () => {
    const types = tableEntries('sammy_object_types');
    expect([...types.keys()].sort()).toEqual([...CMCD_OBJECT_TYPES].sort());
    for (const [key, value] of types) expect(value).toBe(key);
  });

  it('unpaces a busy shared connection for exactly protocol’s media object types without rtp', () => {
    const media = tableEntries('sammy_media_object_types');
    expect([...media.keys()].sort()).toEqual([...MEDIA_OBJECT_TYPES].sort());
    for (const [key, value] of media) expect(value).toBe(key);
  });

  it('allows exactly protocol’s congestion controls, from protocol’s header', () => {
    const ccs = tableEntries('sammy_congestion_controls');
    expect([...ccs.keys()].sort()).toEqual([...CONGESTION_CONTROLS].sort());
    for (const [key, value] of ccs) expect(value).toBe(key);
    expect(VCL_CODE).toContain(`req.http.${CONGESTION_CONTROL_HEADER}`);
    const allowHeaders = STRING_LITERALS.find((s) => s.includes('CMCD-Status,'));
    expect(allowHeaders?.split(/,\s*/)).toContain(CONGESTION_CONTROL_HEADER);
  });
});

interface FalcoSuite {
  name: string;
  group?: string;
  scope: string;
  error?: string;
}
interface FalcoTestReport {
  tests: Array<{ file: string; suites: FalcoSuite[] }>;
  summary: { asserts: number; passes: number; fails: number };
}
interface FalcoLintReport {
  Errors: number;
  Warnings: number;
  LintErrors?: Record<string, Array<{ Severity: string; Message: string; Token?: { Line: number } }>>;
}

function parseJson<T>(what: string, r: ReturnType<typeof spawnSync>): T {
  try {
    return JSON.parse(String(r.stdout)) as T;
  } catch {
    throw new Error(`${what} printed no JSON (exit ${r.status}):\n${String(r.stdout)}\n${String(r.stderr)}`);
  }
}

describe('main.vcl under falco', () => {
  let built: { falco: string } | { error: Error } = { error: new Error('beforeAll did not run') };
  /** The falco binary; a failed build fails each test here (vitest would only mark them skipped). */
  const falco = (): string => {
    if ('error' in built) throw built.error;
    return built.falco;
  };

  // A cold build (Go modules + compile) takes about two minutes; later runs find the cached binary.
  beforeAll(() => {
    const r = spawnSync('bash', [BUILD_FALCO], { encoding: 'utf8', timeout: 280_000 });
    built =
      r.status === 0
        ? { falco: r.stdout.trim().split('\n').pop()! }
        : {
            error: new Error(
              `falco could not be built by ${BUILD_FALCO} (exit ${r.status ?? r.signal}); ` +
                `it needs Go and the Go module proxy.\n${r.stderr}${r.error ? `\n${r.error.message}` : ''}`,
            ),
          };
  }, 300_000);

  it('lints clean: no errors, no warnings', () => {
    const r = spawnSync(falco(), ['lint', '-json', 'main.vcl'], { cwd: FASTLY_DIR, encoding: 'utf8' });
    const report = parseJson<FalcoLintReport>('falco lint', r);
    const problems = Object.values(report.LintErrors ?? {})
      .flat()
      .filter((e) => e.Severity !== 'Info')
      .map((e) => `line ${e.Token?.Line}: ${e.Severity}: ${e.Message}`);
    expect(problems).toEqual([]);
    expect({ errors: report.Errors, warnings: report.Warnings }).toEqual({ errors: 0, warnings: 0 });
    expect(r.status).toBe(0);
  });

  it('passes every falco unit test in fastly/tests', () => {
    // falco finds *.test.vcl under main.vcl's directory itself (adding -I tests would run them twice).
    const r = spawnSync(falco(), ['test', '-json', 'main.vcl'], { cwd: FASTLY_DIR, encoding: 'utf8', timeout: 60_000 });
    const report = parseJson<FalcoTestReport>('falco test', r);
    const suites = report.tests.flatMap((t) => t.suites);
    const failed = suites.filter((s) => s.error).map((s) => `${s.group ? `${s.group} › ` : ''}${s.name}: ${s.error}`);
    expect(failed).toEqual([]);
    expect(report.summary.fails).toBe(0);
    expect(r.status).toBe(0);

    // Every test subroutine ran: falco skipping a file or a suite must not pass silently.
    const declared = readdirSync(TESTS_DIR)
      .filter((f) => f.endsWith('.test.vcl'))
      .flatMap((f) => [...readFileSync(join(TESTS_DIR, f), 'utf8').matchAll(/^\s*sub test_\w+/gm)]);
    expect(declared.length).toBeGreaterThanOrEqual(40);
    expect(suites).toHaveLength(declared.length);
    expect(report.summary.asserts).toBeGreaterThan(declared.length);
  }, 90_000);
});

/**
 * Bandwidth traces for the lab's trace-driven bottleneck (`--trace FILE`, `--traces DIR`).
 *
 * Files are read as they are, in either public format, detected by sammy-pacing-core/traces
 * (mahimahi: one millisecond timestamp per 1500-byte delivery opportunity; `[seconds Mbps]`:
 * Pensieve, FCC, Norway HSDPA, Puffer, Oboe). The delay line (lab/delay) takes mahimahi's format,
 * as mm-link does: a mahimahi trace is handed over as its opportunities, a `[seconds Mbps]` trace
 * is turned into opportunities first (core's formatMahimahi: an opportunity each time the rate
 * curve has carried another 1500 bytes, at that millisecond). Only the first session's worth is
 * handed over (a long trace would be millions of lines); a trace shorter than that loops.
 *
 * Families (`--traces DIR`): a file in a sub-folder of DIR belongs to the family named after that
 * sub-folder (DIR/puffer/…, DIR/hsdpa/…, any depth below it too); a file directly in DIR to the
 * family of its name's prefix, up to its first `_`, `-` or `.` (`norway_bus_1` → norway). With
 * `--trace FILE` the family is the name of the folder holding the file. Skipped: hidden files and
 * README*, LICENSE*, NOTICE*, COPYING*, *.md, *.json, *.csv, *.py.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { formatMahimahi, meanKbps, parseTrace, TraceLink, type BandwidthTrace, type TraceFormat } from 'sammy-pacing-core/traces';

export interface LabTrace {
  /** Unique within the bench: family/file name. */
  id: string;
  name: string;
  family: string;
  file: string;
  format: TraceFormat;
  /** One pass of the trace, seconds (it loops after it). */
  periodSeconds: number;
  /** Mean capacity over one pass, Mbit/s. */
  meanMbps: number;
  trace: BandwidthTrace;
  /** `--trace-scale`: every rate of the file × this (absent: as the file has it). */
  scale?: number;
}

const SKIP = /^(\.|readme|license|licence|notice|copying)|\.(md|json|csv|py|sh)$/i;

/** Family of a file found directly in the traces folder: its name up to the first `_`, `-` or `.`. */
export function familyFromName(file: string): string {
  const name = basename(file);
  return name.split(/[_.-]/)[0] || name;
}

export function loadTrace(file: string, family = basename(dirname(resolve(file)))): LabTrace {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`--trace ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  // Errors name the file and line (TraceFormatError).
  const trace = parseTrace(text, { source: path });
  const name = basename(path);
  return {
    id: `${family}/${name}`,
    name,
    family,
    file: path,
    format: trace.format,
    periodSeconds: trace.periodSeconds,
    meanMbps: meanKbps(trace) / 1000,
    trace,
  };
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (SKIP.test(entry.name)) continue;
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(p));
    else if (entry.isFile()) out.push(p);
  }
  return out;
}

/** Every trace file under `dir`, with its family (sub-folder, else name prefix); sorted by family, then name. */
export function loadTraceDir(dir: string): LabTrace[] {
  const root = resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    /* below */
  }
  if (!isDir) throw new Error(`--traces ${dir}: not a folder`);
  const files = walk(root);
  if (files.length === 0) throw new Error(`--traces ${dir}: no trace files in it`);
  const traces = files.map((f) => {
    const rel = relative(root, f).split(sep);
    return loadTrace(f, rel.length > 1 ? rel[0]! : familyFromName(f));
  });
  return traces.sort((a, b) => a.family.localeCompare(b.family) || a.name.localeCompare(b.name));
}

/**
 * The trace's first `windowSeconds` as mahimahi opportunities (ms offsets, the last one the
 * period): what the delay line replays, looped. A trace shorter than the window is handed over
 * whole (it loops there); a longer one is cut at the window, whose end becomes the period.
 */
export function opportunitiesFor(t: BandwidthTrace, windowSeconds: number): number[] {
  const windowMs = Math.ceil(windowSeconds * 1000);
  if (t.format === 'mahimahi' && t.opportunitiesMs) {
    const all = t.opportunitiesMs;
    if (all.at(-1)! <= windowMs) return [...all];
    const cut = all.filter((ms) => ms <= windowMs);
    if (cut.at(-1) !== windowMs) cut.push(windowMs);
    return cut;
  }
  const period = Math.min(t.periodSeconds, windowMs / 1000);
  const steps = t.steps.filter((s) => s.startSeconds < period);
  return formatMahimahi(steps, period).trim().split('\n').map(Number);
}

/** Writes the opportunities the delay line reads (mahimahi format) and returns the file. */
export function writeOpportunities(t: LabTrace, windowSeconds: number, dir: string): string {
  const file = join(dir, `${t.id.replace(/[^A-Za-z0-9._-]+/g, '_')}.mahimahi`);
  writeFileSync(file, opportunitiesFor(t.trace, windowSeconds).join('\n') + '\n');
  return file;
}

/** Capacity of the opportunities per 1-s bin over `seconds` (looped), Mbit/s. */
export function capacityPerSecond(opportunitiesMs: readonly number[], seconds: number): number[] {
  const period = opportunitiesMs.at(-1)!;
  const bins = new Array<number>(Math.ceil(seconds)).fill(0);
  for (let base = 0; base < seconds * 1000; base += period) {
    for (const ms of opportunitiesMs) {
      const b = Math.floor((base + ms) / 1000);
      if (b < bins.length) bins[b]! += 1500;
    }
  }
  return bins.map((bytes) => (bytes * 8) / 1e6);
}

/** Mean capacity the trace offers over the first `seconds` of a session (looped), Mbit/s. */
export function sessionMeanMbps(t: BandwidthTrace, seconds: number): number {
  return new TraceLink(t).deliverableKbits(0, seconds) / seconds / 1000;
}

/** Peak capacity in any 1-s window of one pass, Mbit/s. */
export function peakMbps(t: BandwidthTrace): number {
  const link = new TraceLink(t);
  let peak = 0;
  for (let s = 0; s < t.periodSeconds; s += 0.5) peak = Math.max(peak, link.deliverableKbits(s, s + 1) / 1000);
  return peak;
}

/**
 * Part of a trace set (`--families`, `--traces-per-family`): only the named families (each must be
 * there), and in each family at most `perFamily` traces spread over its range: sorted by their mean
 * over the session, the traces at the middle of `perFamily` equal shares of that order (one: the
 * median trace; two of four: the 2nd and 4th). Families and traces keep their order.
 */
export function selectTraces(
  traces: readonly LabTrace[],
  opts: { families?: readonly string[]; perFamily?: number; sessionSeconds: number },
): LabTrace[] {
  const known = [...new Set(traces.map((t) => t.family))];
  for (const f of opts.families ?? []) {
    if (!known.includes(f)) throw new Error(`--families: no family "${f}" in the traces (there are ${known.join(', ')})`);
  }
  const out: LabTrace[] = [];
  for (const family of known) {
    if (opts.families && !opts.families.includes(family)) continue;
    const inFamily = traces.filter((t) => t.family === family);
    const n = opts.perFamily;
    if (n === undefined || n >= inFamily.length) {
      out.push(...inFamily);
      continue;
    }
    const mean = new Map(inFamily.map((t) => [t, sessionMeanMbps(t.trace, opts.sessionSeconds)]));
    const byMean = [...inFamily].sort((a, b) => mean.get(a)! - mean.get(b)! || a.name.localeCompare(b.name));
    const picked = new Set(Array.from({ length: n }, (_, i) => byMean[Math.floor(((i + 0.5) * byMean.length) / n)]!));
    out.push(...inFamily.filter((t) => picked.has(t)));
  }
  return out;
}

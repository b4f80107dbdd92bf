/**
 * Reads the two public bandwidth-trace formats, detecting which from the text:
 *
 * - **mahimahi** (`mm-link`): one integer per line, a millisecond timestamp at which the link
 *   may deliver one 1500-byte packet; several lines may share a timestamp. Non-decreasing; the
 *   last timestamp is also the period after which the trace repeats, so it must be above 0
 *   (the rules mahimahi's own LinkQueue enforces).
 * - **`[seconds Mbps]`** (Pensieve, FCC, Norway HSDPA, Puffer and their derivatives): two numbers
 *   per line, a time in seconds and the throughput in Mbit/s measured there. Times strictly
 *   increase; each rate holds until the next line's time, the last one for the median gap
 *   between lines (a one-line trace: 1 s); times are shifted so the trace starts at 0.
 *
 * Blank lines and `#` comments are skipped. Anything else is an error naming the line.
 */
import { describeValue, nearestName, unknownOptionMessage, wrongTypeError } from 'sammy-pacing-protocol';
import { MAHIMAHI_PACKET_KBITS, type BandwidthTrace, type RateStep, type TraceFormat } from './trace.js';

/** A trace that cannot be read: `line` is 1-based (0: the trace as a whole). */
export class TraceFormatError extends Error {
  constructor(
    readonly source: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${source}${line > 0 ? `:${line}` : ''}: ${detail}`);
    this.name = 'TraceFormatError';
  }
}

export interface ParseTraceOptions {
  /** For messages: the file name. Default 'trace'. */
  source?: string;
  /** Expect this format instead of detecting it. */
  format?: TraceFormat;
  /**
   * mahimahi: width of the bins its opportunities are counted in to give a capacity, ms
   * (default 100). A paced sender meets the link through its queue, which smooths the
   * millisecond bursts (0, 12, 24 Mbit/s …) of single opportunities; 100 ms keeps sub-second
   * variation. The opportunities themselves are kept as they are (`opportunitiesMs`).
   */
  binMs?: number;
}

/** ParseTraceOptions' keys, each with a value of its type: their one list, held to the interface by the compiler. */
const PARSE_TRACE_OPTIONS = { source: '', format: '', binMs: 0 } satisfies Record<keyof ParseTraceOptions, unknown>;
const TRACE_FORMATS: readonly string[] = ['mahimahi', 'seconds-mbps'] satisfies TraceFormat[];

/**
 * Refuses, in the one shape of every options error (sammy-pacing-protocol's; this runs in Node, not
 * in a player's bundle, so it names the value and the known options too), options that are not an
 * object, an unknown key, a value of another type than its sample's, and a format it does not read.
 */
function checkParseTraceOptions(options: unknown): ParseTraceOptions {
  if (typeof options !== 'object' || options === null) throw wrongTypeError('parseTrace: options', 'an object', describeValue(options));
  const known = Object.keys(PARSE_TRACE_OPTIONS);
  for (const [key, value] of Object.entries(options)) {
    if (!Object.hasOwn(PARSE_TRACE_OPTIONS, key))
      throw new TypeError(`${unknownOptionMessage('parseTrace', key, nearestName(key, known))}; known: ${known.join(', ')}`);
    const type = typeof PARSE_TRACE_OPTIONS[key as keyof ParseTraceOptions];
    if (value !== undefined && typeof value !== type) throw wrongTypeError(`parseTrace: ${key}`, `a ${type}`, describeValue(value));
  }
  const { format } = options as ParseTraceOptions;
  if (format !== undefined && !TRACE_FORMATS.includes(format))
    throw new RangeError(`parseTrace: format must be 'mahimahi' or 'seconds-mbps', got ${JSON.stringify(format)}`);
  return options;
}

interface DataLine {
  line: number;
  tokens: string[];
}

/** Calls `visit` with each data line (comments and blanks skipped), in order, with its 1-based number, until it returns false. */
function forEachDataLine(text: string, visit: (content: string, line: number) => boolean | void): void {
  let line = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    line++;
    let content = text.slice(start, end);
    const hash = content.indexOf('#');
    if (hash >= 0) content = content.slice(0, hash);
    content = content.trim();
    if (content !== '' && visit(content, line) === false) return;
    start = end + 1;
  }
}

const tokensOf = (content: string) => content.split(/[\s,;]+/);

function firstDataLine(text: string): DataLine | undefined {
  let first: DataLine | undefined;
  forEachDataLine(text, (content, line) => {
    first = { line, tokens: tokensOf(content) };
    return false;
  });
  return first;
}

/** A whole non-negative number of digits only, or NaN (faster than a regex on big mahimahi files). */
function digitsValue(content: string): number {
  let value = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NaN;
    value = value * 10 + c;
  }
  return value;
}

const FORMAT_BY_TOKENS: Record<number, TraceFormat | undefined> = { 1: 'mahimahi', 2: 'seconds-mbps' };
const DESCRIBE: Record<TraceFormat, string> = {
  mahimahi: 'one integer millisecond timestamp (mahimahi)',
  'seconds-mbps': 'two numbers, seconds and Mbit/s',
};

/** The format of a trace's text, from its first data line. */
export function detectTraceFormat(text: string, source = 'trace'): TraceFormat {
  const first = firstDataLine(text);
  if (!first) throw new TraceFormatError(source, 0, 'no data lines: an empty trace');
  const format = FORMAT_BY_TOKENS[first.tokens.length];
  if (!format) {
    throw new TraceFormatError(
      source,
      first.line,
      `expected ${DESCRIBE.mahimahi} or ${DESCRIBE['seconds-mbps']} per line, found ${first.tokens.length} values`,
    );
  }
  return format;
}

export function parseTrace(text: string, input: ParseTraceOptions = {}): BandwidthTrace {
  const options = checkParseTraceOptions(input);
  const source = options.source ?? 'trace';
  const format = options.format ?? detectTraceFormat(text, source);
  const trace = format === 'mahimahi' ? parseMahimahi(text, source, options.binMs ?? 100) : parseSecondsMbps(text, source);
  if (!trace.steps.some((s) => s.kbps > 0)) throw new TraceFormatError(source, 0, 'the trace delivers nothing (every rate is 0)');
  return trace;
}

function wrongCount(source: string, line: number, format: TraceFormat, found: number): TraceFormatError {
  return new TraceFormatError(source, line, `expected ${DESCRIBE[format]} like the lines before it, found ${found} values`);
}

function parseMahimahi(text: string, source: string, binMs: number): BandwidthTrace {
  if (!(binMs > 0) || !Number.isFinite(binMs)) throw new RangeError(`Sammy traces: binMs must be a positive number, got ${binMs}`);
  const opportunities: number[] = [];
  let previous = 0;
  forEachDataLine(text, (content, line) => {
    const ms = digitsValue(content);
    if (Number.isNaN(ms)) {
      const tokens = tokensOf(content);
      if (tokens.length !== 1) throw wrongCount(source, line, 'mahimahi', tokens.length);
      throw new TraceFormatError(source, line, `expected a whole number of milliseconds (mahimahi), found "${content}"`);
    }
    if (ms < previous) throw new TraceFormatError(source, line, `timestamps must not decrease (mahimahi): ${ms} after ${previous}`);
    opportunities.push((previous = ms));
  });
  if (opportunities.length === 0) throw new TraceFormatError(source, 0, 'no data lines: an empty trace');
  const periodMs = previous;
  if (periodMs === 0)
    throw new TraceFormatError(source, 0, 'the last timestamp is 0: a mahimahi trace must last a nonzero time (it is also the period)');
  // The opportunity at the period is the next pass's instant 0.
  const bins = Math.ceil(periodMs / binMs);
  const counts = new Float64Array(bins);
  for (const ms of opportunities) counts[ms === periodMs ? 0 : Math.floor(ms / binMs)]! += 1;
  const steps: RateStep[] = [];
  for (let b = 0; b < bins; b++) {
    const width = Math.min(binMs, periodMs - b * binMs);
    const kbps = (counts[b]! * MAHIMAHI_PACKET_KBITS * 1000) / width;
    // Merge equal neighbours: a constant link is one step.
    if (steps.at(-1)?.kbps !== kbps) steps.push({ startSeconds: (b * binMs) / 1000, kbps });
  }
  return { format: 'mahimahi', periodSeconds: periodMs / 1000, steps, opportunitiesMs: opportunities };
}

function parseSecondsMbps(text: string, source: string): BandwidthTrace {
  const times: number[] = [];
  const steps: RateStep[] = [];
  forEachDataLine(text, (content, line) => {
    const tokens = tokensOf(content);
    if (tokens.length !== 2) throw wrongCount(source, line, 'seconds-mbps', tokens.length);
    const [t, mbps] = tokens.map(Number) as [number, number];
    if (!Number.isFinite(t) || !Number.isFinite(mbps)) {
      throw new TraceFormatError(source, line, `expected two numbers, seconds and Mbit/s, found "${tokens.join(' ')}"`);
    }
    if (mbps < 0) throw new TraceFormatError(source, line, `a negative rate: ${mbps} Mbit/s`);
    const previous = times.at(-1);
    if (previous !== undefined && t <= previous)
      throw new TraceFormatError(source, line, `times must increase: ${t} s after ${previous} s`);
    times.push(t);
    steps.push({ startSeconds: t - times[0]!, kbps: mbps * 1000 });
  });
  if (times.length === 0) throw new TraceFormatError(source, 0, 'no data lines: an empty trace');
  const gaps = times
    .slice(1)
    .map((t, i) => t - times[i]!)
    .sort((a, b) => a - b);
  const lastGap = gaps.length === 0 ? 1 : gaps[Math.floor(gaps.length / 2)]!;
  return { format: 'seconds-mbps', periodSeconds: times.at(-1)! - times[0]! + lastGap, steps };
}

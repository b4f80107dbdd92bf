/**
 * The rate sweep's command line: its own flags (--multiples, --arms, --judge, --results), and
 * everything else handed to each bench invocation as given. The bench's own parser then checks
 * those (sweep.ts), so a flag the bench would refuse stops the sweep before any run.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ARMS, isArm } from './config.js';
import { LAB_DIR } from './scripts.js';
import { JUDGED_ARM } from './sweep-report.js';

/** Issue 17: the link at 1.5, 2, 3, 6 and 12 × the top bitrate (12 × 3.3 Mbit/s ≈ the paper's 40). */
export const DEFAULT_MULTIPLES: readonly number[] = [1.5, 2, 3, 6, 12];
/** Unpaced, the paper's pace design (sammy-paper), the defaults (sammy: PRESETS.bufferAware's design), dash.js's own rtp. */
export const DEFAULT_SWEEP_ARMS: readonly string[] = ['unpaced', 'sammy-paper', 'sammy', 'dashjs-rtp'];

/** The neighbours a sweep can run beside the video: one per sweep. */
export const SWEEP_NEIGHBOURS = ['udp', 'game'] as const;
export type SweepNeighbour = (typeof SWEEP_NEIGHBOURS)[number];

/** Bench flags the sweep sets for every invocation, and what to use instead. */
const SET_BY_SWEEP: Record<string, string> = {
  rate: 'the sweep sets it to each multiple × the top bitrate: use --multiples',
  'udp-mbps': "the sweep sets the UDP neighbour to 1/8 of each link (the paper's 5 of 40 Mbit/s)",
  neighbours: 'the sweep runs one neighbour: --neighbour udp (default) or --neighbour game',
  trace: 'the sweep is for constant links; run bench:lab with a trace instead',
  traces: 'the sweep is for constant links; run bench:lab with traces instead',
};

export const SWEEP_HELP = `Sammy lab rate sweep (issue 17): bench:lab at several constant link rates, each a multiple of the
top video bitrate, with the UDP neighbour at 1/8 of the link; one report over all of them.
Linux, root (as bench:lab).

usage: npm run bench:lab:sweep -- [flags]

  --multiples LIST   link rates as multiples of the top video bitrate, comma-separated (default ${DEFAULT_MULTIPLES.join(',')})
  --arms LIST        comma-separated: ${ARMS.join(', ')}; must include unpaced
                     (default ${DEFAULT_SWEEP_ARMS.join(',')})
  --judge ARM        the arm checked against issue 17's targets (default ${JUDGED_ARM})
  --neighbour N      ${SWEEP_NEIGHBOURS.join(' or ')} (default udp): the UDP flow at 1/8 of the link, or the WebRTC game
                     stream (issue 34; its maxBitrate 60 % of each link unless --game-mbps)
  --results DIR      the sweep writes DIR/sweep-<timestamp>/, each invocation in a sub-folder (default lab/results)
  -h, --help         this text

Every other flag goes to each bench:lab invocation as given: --runs, --duration, --seed, --queue, --cc,
--rtt-ms, --buffer-seconds, --manifest, --plain, … (npm run bench:lab -- --help). The sweep sets
--rate, --udp-mbps and --neighbours udp itself; --trace/--traces are refused.

Writes report.md (a table per link multiple, the targets, links to each invocation's folder), plots/*.png
and *.svg (against the link multiple), sweep.json.`;

const OWN = {
  multiples: { type: 'string' },
  arms: { type: 'string' },
  judge: { type: 'string' },
  neighbour: { type: 'string' },
  results: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface SweepArgs {
  /** The one neighbour every invocation runs (default udp). */
  neighbour?: SweepNeighbour;
  multiples: number[];
  arms: string[];
  judgedArm: string;
  /** Where sweep-<timestamp>/ goes. */
  resultsDir: string;
  /** The flags every bench invocation gets as given. */
  passthrough: string[];
}

export type SweepParse = { help: true } | { help: false; args: SweepArgs };

/** Splits argv into the sweep's own flags and the bench's, in their order. */
function split(argv: readonly string[]): { own: string[]; passthrough: string[] } {
  // Not strict: unknown (bench) flags come back as tokens, each with its index in argv.
  const { tokens } = parseArgs({ args: [...argv], options: OWN, strict: false, allowPositionals: true, tokens: true });
  const ownIndices = new Set<number>();
  for (const t of tokens) {
    if (t.kind !== 'option' || !Object.hasOwn(OWN, t.name)) continue;
    ownIndices.add(t.index);
    if (t.value !== undefined && !t.inlineValue) ownIndices.add(t.index + 1);
  }
  return { own: argv.filter((_, i) => ownIndices.has(i)), passthrough: argv.filter((_, i) => !ownIndices.has(i)) };
}

export function parseMultiples(value: string): number[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new Error('--multiples needs at least one number');
  const ms = items.map((s) => {
    const n = Number(s);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--multiples: "${s}" is not a positive number`);
    return n;
  });
  if (new Set(ms).size !== ms.length) throw new Error(`--multiples lists a multiple twice: ${value}`);
  return ms.sort((a, b) => a - b);
}

function parseArms(value: string | undefined): string[] {
  const arms =
    value === undefined
      ? [...DEFAULT_SWEEP_ARMS]
      : value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  for (const a of arms) if (!isArm(a)) throw new Error(`unknown arm "${a}" (choose from ${ARMS.join(', ')})`);
  if (new Set(arms).size !== arms.length) throw new Error(`--arms lists an arm twice: ${arms.join(',')}`);
  if (!arms.includes('unpaced')) throw new Error('--arms must include unpaced: every change and target is against it');
  return arms;
}

export function parseSweepArgs(argv: readonly string[]): SweepParse {
  const { own, passthrough } = split(argv);
  const { values } = parseArgs({ args: own, options: OWN, strict: true });
  if (values.help) return { help: true };
  const { tokens } = parseArgs({ args: passthrough, strict: false, allowPositionals: true, tokens: true });
  for (const t of tokens) {
    if (t.kind === 'option' && Object.hasOwn(SET_BY_SWEEP, t.name))
      throw new Error(`--${t.name} is not for the sweep: ${SET_BY_SWEEP[t.name]}`);
  }
  const arms = parseArms(values.arms);
  const neighbour = values.neighbour ?? 'udp';
  if (!(SWEEP_NEIGHBOURS as readonly string[]).includes(neighbour))
    throw new Error(`--neighbour must be one of ${SWEEP_NEIGHBOURS.join(', ')}, got ${neighbour}`);
  const judgedArm = values.judge ?? JUDGED_ARM;
  if (values.judge !== undefined && !arms.includes(judgedArm))
    throw new Error(`--judge ${judgedArm} is not one of --arms (${arms.join(',')})`);
  return {
    help: false,
    args: {
      multiples: parseMultiples(values.multiples ?? DEFAULT_MULTIPLES.join(',')),
      arms,
      judgedArm,
      ...(neighbour !== 'udp' ? { neighbour: neighbour as SweepNeighbour } : {}),
      resultsDir: resolve(values.results ?? join(LAB_DIR, 'results')),
      passthrough,
    },
  };
}

/** The link for one multiple: Mbit/s to a kbit/s (tc's unit is finer), the UDP neighbour at 1/8 of it. */
export function linkFor(multiple: number, topVideoKbps: number): { multiple: number; rateMbps: number; udpMbps: number } {
  const rateMbps = Math.round(multiple * topVideoKbps) / 1000;
  return { multiple, rateMbps, udpMbps: Math.round((rateMbps / 8) * 1e4) / 1e4 };
}

/** One bench invocation's flags. */
export function benchArgs(args: SweepArgs, link: { rateMbps: number; udpMbps: number }, resultsDir: string): string[] {
  return [
    '--rate',
    String(link.rateMbps),
    '--udp-mbps',
    String(link.udpMbps),
    '--neighbours',
    args.neighbour ?? 'udp',
    '--arms',
    args.arms.join(','),
    '--results',
    resultsDir,
    ...args.passthrough,
  ];
}

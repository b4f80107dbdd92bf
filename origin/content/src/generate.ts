/**
 * Generates the DASH test ladder (and HLS playlists for the same segments) with the ffmpeg binary shipped in @ffmpeg-installer/ffmpeg
 * (no system install), and caches it: a directory counts as done only once its stamp matches the spec.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_LADDER, ladderFfmpegArgs, type LadderSpec } from './ladder.js';
import { DEFAULT_LADDER_DIR, MANIFEST_NAME } from './paths.js';
import { createProgressBar } from './progress-bar.js';

const STAMP_NAME = '.sammy-ladder.json';
/**
 * What the stamp records besides the spec: bump it when the generator's output changes for the
 * same spec, so content generated before is made again. 2: HLS playlists beside the MPD.
 */
export const CONTENT_VERSION = 2;

function stampOf(spec: LadderSpec): string {
  return JSON.stringify({ version: CONTENT_VERSION, spec });
}

export function ffmpegPath(): string {
  const installer = createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string };
  return installer.path;
}

export interface GenerateOptions {
  outDir: string;
  spec?: LadderSpec;
  /** Fraction done, 0..1, from ffmpeg's -progress output. */
  onProgress?: (fraction: number, encodedS: number) => void;
}

/** Encodes into `outDir` (created; existing files are overwritten). Rejects with ffmpeg's stderr on failure. */
export async function generateLadder(options: GenerateOptions): Promise<{ manifestPath: string; elapsedMs: number }> {
  const spec = options.spec ?? DEFAULT_LADDER;
  await mkdir(options.outDir, { recursive: true });
  const manifestPath = join(options.outDir, MANIFEST_NAME);
  const started = performance.now();
  const ffmpeg = spawn(ffmpegPath(), ladderFfmpegArgs(spec, manifestPath), { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  ffmpeg.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  createInterface({ input: ffmpeg.stdout }).on('line', (line) => {
    // -progress writes key=value lines; out_time_us is the encoded position (out_time_ms is µs too in ffmpeg 4).
    const m = /^out_time_(?:us|ms)=(\d+)/.exec(line);
    if (m) {
      const encodedS = Number(m[1]) / 1e6;
      options.onProgress?.(Math.min(1, encodedS / spec.durationS), encodedS);
    }
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    ffmpeg.once('error', reject);
    ffmpeg.once('close', resolve);
  });
  if (code !== 0) throw new Error(`ffmpeg exited with ${code}: ${stderr.trim()}`);
  options.onProgress?.(1, spec.durationS);
  return { manifestPath, elapsedMs: performance.now() - started };
}

async function stampMatches(dir: string, spec: LadderSpec): Promise<boolean> {
  try {
    return (await readFile(join(dir, STAMP_NAME), 'utf8')) === stampOf(spec);
  } catch {
    return false;
  }
}

export interface EnsureContentOptions {
  dir?: string;
  spec?: LadderSpec;
  /** Show a progress bar on stderr. Default true. */
  progress?: boolean;
  force?: boolean;
}

export interface EnsuredContent {
  dir: string;
  manifestPath: string;
  generated: boolean;
  elapsedMs: number;
}

/**
 * The ladder at `dir` (default: the repo's .cache/media/default), generated on first use.
 * Encodes into a temporary sibling and renames it into place, so an interrupted run leaves nothing half-made.
 */
export async function ensureContent(options: EnsureContentOptions = {}): Promise<EnsuredContent> {
  const dir = options.dir ?? DEFAULT_LADDER_DIR;
  const spec = options.spec ?? DEFAULT_LADDER;
  const manifestPath = join(dir, MANIFEST_NAME);
  if (!options.force && (await stampMatches(dir, spec))) return { dir, manifestPath, generated: false, elapsedMs: 0 };

  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  const bar = options.progress === false ? undefined : createProgressBar('sammy: encoding test ladder');
  try {
    const { elapsedMs } = await generateLadder({
      outDir: tmp,
      spec,
      onProgress: bar && ((f, s) => bar.update(f, `${s.toFixed(0)}/${spec.durationS} s`)),
    });
    await writeFile(join(tmp, STAMP_NAME), stampOf(spec));
    if (!(await stampMatches(dir, spec)) || options.force) {
      await rm(dir, { recursive: true, force: true });
      await rename(tmp, dir);
    }
    bar?.done(`sammy: test ladder ready in ${(elapsedMs / 1000).toFixed(1)} s at ${dir}`);
    return { dir, manifestPath, generated: true, elapsedMs };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

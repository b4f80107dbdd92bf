import type { SegmentSample } from './players/player.js';
import { mean, median, relativeChange, StallLog, totalStallTime, type StallInterval } from 'sammy-pacing-protocol/measure';
import { RunLog, type Run } from './runs.js';

/** What the summary needs of a finished segment. */
export type ChunkSample = Pick<SegmentSample, 'time' | 'mediaType' | 'durationMs' | 'throughputKbps' | 'bitrateKbps'>;

export interface RunSummary {
  index: number;
  paced: boolean;
  startedAt: number;
  durationMs: number;
  chunks: number;
  medianChunkThroughputKbps: number | undefined;
  meanBitrateKbps: number | undefined;
  rebufferCount: number;
  rebufferMs: number;
}

/** Paced runs against unpaced runs of the same session, each side pooled over its runs. */
export interface PacedComparison {
  pacedMedianChunkThroughputKbps: number;
  unpacedMedianChunkThroughputKbps: number;
  /** 1 − paced/unpaced median chunk throughput (0.6 = 60 % lower when paced). */
  chunkThroughputReduction: number;
  pacedMeanBitrateKbps: number;
  unpacedMeanBitrateKbps: number;
  /** paced/unpaced mean bitrate − 1 (−0.02 = 2 % lower when paced). */
  bitrateChange: number;
}

export interface SessionSummary {
  /** From the play request to the first frame playing, ms. */
  startupDelayMs: number | undefined;
  /** Mean bitrate of the video segments fetched (all of equal duration, so also the time-weighted mean). */
  meanBitrateKbps: number | undefined;
  rebufferCount: number;
  rebufferMs: number;
  /** Median of the client-measured throughput of each video segment. */
  medianChunkThroughputKbps: number | undefined;
  chunks: number;
  runs: RunSummary[];
  /** Present once a paced and an unpaced run each have at least one chunk. */
  comparison: PacedComparison | undefined;
}

/**
 * One playback session's bookkeeping, fed by player and plugin events with wall-clock ms.
 * Only video chunks count: audio segments are small and their throughput says little.
 */
export class DemoSession {
  private playRequestedAt: number | undefined;
  private readonly chunks: ChunkSample[] = [];
  /** Stalls after the first frame; it also knows when playback started. */
  readonly rebuffers = new StallLog();
  readonly runs: RunLog;

  constructor(paced: boolean) {
    this.runs = new RunLog(paced);
  }

  playRequested(time: number): void {
    this.playRequestedAt ??= time;
  }

  /** Playback (re)started; the first time ends the initial phase and begins the first run. */
  playing(time: number): void {
    if (!this.started) this.runs.playbackStarted(time);
    this.rebuffers.playing(time);
  }

  get started(): boolean {
    return this.rebuffers.playbackStartedAt !== undefined;
  }

  /** Playback waits for data. Before the first frame that is startup, not a rebuffer. */
  waiting(time: number): void {
    this.rebuffers.waiting(time);
  }

  setPaced(time: number, paced: boolean): void {
    this.runs.setPaced(time, paced);
  }

  addChunk(sample: ChunkSample): void {
    if (sample.mediaType !== 'video') return;
    this.chunks.push(sample);
    // The run is the one the request started in, so a chunk asked for unpaced counts as unpaced.
    this.runs.addChunk(sample.time - sample.durationMs, {
      throughputKbps: sample.throughputKbps,
      bitrateKbps: sample.bitrateKbps,
    });
  }

  summary(now: number): SessionSummary {
    const stalls = this.rebuffers.intervals(now);
    const runs = this.runs.all().map((run) => summariseRun(run, stalls, now));
    const startedAt = this.rebuffers.playbackStartedAt;
    return {
      startupDelayMs: this.playRequestedAt !== undefined && startedAt !== undefined ? startedAt - this.playRequestedAt : undefined,
      meanBitrateKbps: mean(this.chunks.map((c) => c.bitrateKbps)),
      rebufferCount: stalls.length,
      rebufferMs: totalStallTime(stalls),
      medianChunkThroughputKbps: median(this.chunks.map((c) => c.throughputKbps)),
      chunks: this.chunks.length,
      runs,
      comparison: compare(this.runs.all()),
    };
  }
}

function summariseRun(run: Run, stalls: readonly StallInterval[], now: number): RunSummary {
  const end = run.endedAt ?? now;
  const inRun = stalls.filter((s) => s.start >= run.startedAt && s.start < end);
  return {
    index: run.index,
    paced: run.paced,
    startedAt: run.startedAt,
    durationMs: Math.max(0, end - run.startedAt),
    chunks: run.chunks.length,
    medianChunkThroughputKbps: median(run.chunks.map((c) => c.throughputKbps)),
    meanBitrateKbps: mean(run.chunks.map((c) => c.bitrateKbps)),
    rebufferCount: inRun.length,
    rebufferMs: totalStallTime(inRun),
  };
}

function compare(runs: readonly Run[]): PacedComparison | undefined {
  const pool = (paced: boolean) => runs.filter((r) => r.paced === paced).flatMap((r) => r.chunks);
  const paced = pool(true);
  const unpaced = pool(false);
  const pacedThroughput = median(paced.map((c) => c.throughputKbps));
  const unpacedThroughput = median(unpaced.map((c) => c.throughputKbps));
  const pacedBitrate = mean(paced.map((c) => c.bitrateKbps));
  const unpacedBitrate = mean(unpaced.map((c) => c.bitrateKbps));
  const throughputChange = relativeChange(unpacedThroughput, pacedThroughput);
  const bitrateChange = relativeChange(unpacedBitrate, pacedBitrate);
  if (
    pacedThroughput === undefined ||
    unpacedThroughput === undefined ||
    throughputChange === undefined ||
    pacedBitrate === undefined ||
    unpacedBitrate === undefined ||
    bitrateChange === undefined
  ) {
    return undefined;
  }
  return {
    pacedMedianChunkThroughputKbps: pacedThroughput,
    unpacedMedianChunkThroughputKbps: unpacedThroughput,
    chunkThroughputReduction: -throughputChange,
    pacedMeanBitrateKbps: pacedBitrate,
    unpacedMeanBitrateKbps: unpacedBitrate,
    bitrateChange,
  };
}

/** What a viewer and the network see of one simulated session. */
import type { SimulationConfig, SimulationResult } from './session-simulator.js';

export interface Qoe {
  /** Mean bitrate over every segment, kbps. */
  meanBitrateKbps: number;
  /** Rebuffering time per second of media. */
  rebufferRatio: number;
  stalls: number;
  /** Bitrate changes between consecutive segments. */
  switches: number;
  startupSeconds: number;
  /** Mean chunk throughput (segment bits over request-to-last-byte time), kbps. */
  chunkKbps: number;
  /**
   * Of the playing phase's transfer time, the share during which the pace was below the link's
   * capacity (the bottleneck had room to spare); NaN when nothing was paced.
   */
  pacedBelowCapacity: number;
}

function pacedShare(playing: SimulationResult['segments']): number {
  const transfer = playing.reduce((sum, s) => sum + s.downloadSeconds, 0);
  return playing.some((s) => s.paceKbps !== undefined) ? playing.reduce((sum, s) => sum + s.pacedSeconds, 0) / transfer : NaN;
}

export function qoe(result: SimulationResult, config: Pick<SimulationConfig, 'segmentSeconds'>): Qoe {
  const segments = result.segments;
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    meanBitrateKbps: mean(segments.map((s) => s.bitrateKbps)),
    rebufferRatio: result.stallSeconds / (segments.length * config.segmentSeconds),
    stalls: result.stalls,
    switches: segments.filter((s, i) => i > 0 && s.bitrateKbps !== segments[i - 1]!.bitrateKbps).length,
    startupSeconds: result.startupSeconds,
    chunkKbps: mean(segments.map((s) => s.throughputKbps)),
    pacedBelowCapacity: pacedShare(segments.filter((s) => s.phase === 'playing')),
  };
}

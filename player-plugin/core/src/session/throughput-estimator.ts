import { appendBounded, harmonicMeanKbps } from '../policy/throughput.js';
import type { MediaKind } from '../policy/types.js';

/**
 * This session's chunk throughputs, one window per media type: small audio segments measure
 * mostly latency and would drag a shared estimate down.
 */
export class SessionThroughput {
  #samples: Record<MediaKind, number[]> = { video: [], audio: [] };

  add(mediaType: MediaKind, kbps: number, limit: number): void {
    this.#samples[mediaType] = appendBounded(this.#samples[mediaType], kbps, limit);
  }

  /** Harmonic mean of the latest `window` samples of this media type, kbps; undefined before any. */
  estimateKbps(mediaType: MediaKind, window: number): number | undefined {
    return harmonicMeanKbps(this.#samples[mediaType], window);
  }

  reset(): void {
    this.#samples = { video: [], audio: [] };
  }
}

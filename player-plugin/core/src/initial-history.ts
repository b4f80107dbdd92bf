import { appendBounded, harmonicMeanKbps } from './policy/throughput.js';

/** Where initial-phase throughput samples persist between sessions. */
export interface InitialThroughputStore {
  load(): number[];
  save(samplesKbps: readonly number[]): void;
}

export const INITIAL_HISTORY_KEY = 'sammy:initial-throughput-kbps';

export function memoryStore(initial: readonly number[] = []): InitialThroughputStore {
  let samples = [...initial];
  return {
    load: () => [...samples],
    save: (s) => {
      samples = [...s];
    },
  };
}

/**
 * localStorage where the page has it, memory otherwise. Storage that throws (private modes, quota)
 * is no error: the history also lives in memory for the page's lifetime (initialThroughputHistory),
 * so a failed read starts it empty and a failed write only forgoes the next page's head start.
 */
export function defaultStore(): InitialThroughputStore {
  let store: Storage | undefined;
  try {
    store = (globalThis as { localStorage?: Storage }).localStorage;
  } catch {
    // Reading it throws where the page may not store anything (storage blocked by the user).
  }
  if (!store) return memoryStore();
  return {
    load() {
      try {
        const parsed: unknown = JSON.parse(store.getItem(INITIAL_HISTORY_KEY) ?? '[]');
        return Array.isArray(parsed) ? parsed.filter((n): n is number => Number.isFinite(n) && n > 0) : [];
      } catch {
        return [];
      }
    },
    save(samples) {
      try {
        store.setItem(INITIAL_HISTORY_KEY, JSON.stringify(samples));
      } catch {
        // The history is an optimisation: playback goes on without it.
      }
    },
  };
}

/**
 * The initial-phase history: bounded, persisted, never fed paced samples. Its one user, the session,
 * passes its parameters' limits every time, so none has a default. (Closures: their names shrink in
 * a minified bundle.)
 */
export function initialThroughputHistory(store: InitialThroughputStore = defaultStore(), limit: number) {
  let samples = store.load().slice(-limit);
  return {
    /** Records an unpaced initial-phase sample, kbps, keeping the latest `limit`. */
    add(kbps: number, limit: number): void {
      samples = appendBounded(samples, kbps, limit);
      store.save(samples);
    },
    /** Harmonic mean of the latest `window` samples, kbps; undefined when empty. */
    estimateKbps: (window: number): number | undefined => harmonicMeanKbps(samples, window),
    get size(): number {
      return samples.length;
    },
  };
}

import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultStore, INITIAL_HISTORY_KEY, initialThroughputHistory } from '../src/initial-history.js';

/** A Storage whose calls can be made to throw, as browsers do in private modes, on quota or when storage is blocked. */
function fakeStorage(failing: { get?: boolean; set?: boolean } = {}) {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k: string) => {
      if (failing.get) throw new DOMException('blocked', 'SecurityError');
      return items.get(k) ?? null;
    },
    setItem: (k: string, v: string) => {
      if (failing.set) throw new DOMException('full', 'QuotaExceededError');
      items.set(k, v);
    },
  };
}

afterEach(() => vi.unstubAllGlobals());

describe('defaultStore', () => {
  it('persists the history in localStorage between sessions', () => {
    const storage = fakeStorage();
    vi.stubGlobal('localStorage', storage);
    initialThroughputHistory(defaultStore(), 20).add(8000, 20);
    expect(JSON.parse(storage.items.get(INITIAL_HISTORY_KEY)!)).toEqual([8000]);
    expect(initialThroughputHistory(defaultStore(), 20).estimateKbps(5)).toBe(8000);
  });

  it('drops what is not a positive number from a stored history', () => {
    const storage = fakeStorage();
    storage.items.set(INITIAL_HISTORY_KEY, JSON.stringify([5000, -1, 'x', null, 1e400, 3000]));
    vi.stubGlobal('localStorage', storage);
    expect(defaultStore().load()).toEqual([5000, 3000]);
    storage.items.set(INITIAL_HISTORY_KEY, '{not json');
    expect(defaultStore().load()).toEqual([]);
  });

  it('keeps the history in memory for the page when storage throws on every call', () => {
    vi.stubGlobal('localStorage', fakeStorage({ get: true, set: true }));
    const history = initialThroughputHistory(defaultStore(), 20);
    expect(history.size).toBe(0);
    history.add(6000, 20);
    history.add(12000, 20);
    expect(history.estimateKbps(5)).toBe(8000);
  });

  it('works when reading localStorage itself throws (storage blocked by the user)', () => {
    Object.defineProperty(globalThis, 'localStorage', {
      configurable: true,
      get() {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    });
    try {
      const store = defaultStore();
      store.save([4000]);
      expect(store.load()).toEqual([4000]);
    } finally {
      delete (globalThis as { localStorage?: unknown }).localStorage;
    }
  });
});

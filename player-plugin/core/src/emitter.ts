/** A minimal typed event emitter: `on` returns its own unsubscribe. */
export interface Emitter<Events extends Record<string, unknown>> {
  on<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): () => void;
  emit<K extends keyof Events>(event: K, payload: Events[K]): void;
  clear(): void;
}

export function createEmitter<Events extends Record<string, unknown>>(): Emitter<Events> {
  const listeners = new Map<keyof Events, Set<(payload: never) => void>>();
  return {
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set.add(listener as (payload: never) => void));
      return () => set.delete(listener as (payload: never) => void);
    },
    emit(event, payload) {
      for (const listener of listeners.get(event) ?? []) {
        try {
          (listener as (p: typeof payload) => void)(payload);
        } catch (error) {
          // A broken listener (a UI, a test) must never break the request path.
          console.error('Sammy: a listener failed', error);
        }
      }
    },
    clear: () => listeners.clear(),
  };
}

/** The reference origin's metrics registry: the pacing metrics, and the process's own beside them. */
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { MetricsRegistry } from 'sammy-pacing-express';

/** A registry with the process's own metrics (CPU, RSS, fds, event-loop lag), for the middleware's to join. */
export function originMetricsRegistry(): MetricsRegistry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry as unknown as MetricsRegistry;
}

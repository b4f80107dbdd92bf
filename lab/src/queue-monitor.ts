/**
 * Samples the bottleneck queue (tc's backlog and drop counters) while a run is under way.
 * Queue delay = backlog / rate: the wait a packet joining the queue at that moment would see.
 */
import { readQueue, type QueueSample, type Topology } from './topology.js';

export class QueueMonitor {
  readonly samples: QueueSample[] = [];
  #timer: NodeJS.Timeout | undefined;
  #busy = false;

  constructor(
    private readonly topology: Topology,
    private readonly intervalMs = 100,
  ) {}

  start(): void {
    this.#timer = setInterval(() => {
      // One tc at a time: on a busy 2-core machine a slow read must not pile up processes.
      if (this.#busy) return;
      this.#busy = true;
      readQueue(this.topology)
        .then((s) => this.samples.push(s))
        .catch(() => undefined)
        .finally(() => (this.#busy = false));
    }, this.intervalMs);
  }

  stop(): QueueSample[] {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    return this.samples;
  }
}

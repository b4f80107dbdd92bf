/**
 * `sammy-origin --workers N`: the reference origin on every core. Node serves from one thread, so the primary
 * forks N workers (node:cluster) that share the listening ports, replaces a worker that dies, and keeps whole what
 * an operator reads:
 * - `/metrics`: whichever worker a scrape reaches asks the primary, which sums every live worker's registry
 *   (prom-client's AggregatorRegistry, made for node:cluster);
 * - the delivery records: each worker sends its own to the primary, which keeps a log and passes each record on to
 *   the other workers, so every worker's records endpoint and event stream show every response. Record ids stay
 *   unique (a worker in slot s of N allocates ids ≡ s + 1 mod N, above every id seen before it started), since a
 *   response's Server-Timing names its record by id.
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type PrometheusContentType, type Registry } from 'prom-client';
import { DeliveryRecordLog, type DeliveryRecord, type MetricsRegistry } from 'sammy-pacing-express';

/** What a worker says once its listeners are up (or could not be): its lines, for the primary to print once. */
export interface WorkerStarted {
  type: 'sammy:started';
  stdout: string[];
  stderr: string[];
  /** At least one listener bound. */
  listening: boolean;
}

type ClusterMessage =
  | WorkerStarted
  | { type: 'sammy:hello' }
  | { type: 'sammy:welcome'; records: DeliveryRecord[]; firstCounter: number }
  | { type: 'sammy:record'; record: DeliveryRecord }
  | { type: 'sammy:metrics-request'; id: number }
  | { type: 'sammy:metrics'; id: number; text?: string; error?: string };

function isClusterMessage(m: unknown): m is ClusterMessage {
  return (
    typeof m === 'object' &&
    m !== null &&
    typeof (m as { type?: unknown }).type === 'string' &&
    (m as { type: string }).type.startsWith('sammy:')
  );
}

/** `--workers auto` or a positive integer. */
export function parseWorkers(value: string, cores: number): number | undefined {
  if (value === 'auto') return cores;
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}

/** A worker that dies this soon after its start is started again only after this pause (no crash loop at full speed). */
const RESTART_PAUSE_MS = 1000;

export interface PrimaryOptions {
  workers: number;
  /** Record log capacity (the workers' default). */
  recordCapacity?: number;
  log?: (line: string) => void;
  error?: (line: string) => void;
}

/**
 * The primary: forks the workers, prints the first one's start-up lines once, replaces a worker that exits after it
 * served, and exits (1) if one cannot start (a busy port: every worker would fail alike). SIGINT/SIGTERM stop the
 * workers and then itself.
 */
export function runPrimary(opts: PrimaryOptions): void {
  const log = opts.log ?? ((l: string) => console.log(l));
  const error = opts.error ?? ((l: string) => console.error(l));
  const aggregator = new AggregatorRegistry<PrometheusContentType>();
  const records = new DeliveryRecordLog(opts.recordCapacity);
  let maxRecordId = 0;
  let stopping = false;
  let announced = false;
  const slots = new Map<Worker, { slot: number; startedAt: number; listening: boolean }>();

  const live = () => [...slots.keys()].filter((w) => w.isConnected());
  const stopAll = (signal: NodeJS.Signals) => {
    for (const w of slots.keys()) if (w.process.exitCode === null && w.process.signalCode === null) w.process.kill(signal);
  };

  const fork = (slot: number) => {
    const worker = cluster.fork({ SAMMY_WORKER_SLOT: String(slot), SAMMY_WORKERS: String(opts.workers) });
    slots.set(worker, { slot, startedAt: Date.now(), listening: false });
    worker.on('message', (m: unknown) => onMessage(worker, m));
    worker.on('exit', (code, signal) => onExit(worker, code, signal));
  };

  const onMessage = (worker: Worker, m: unknown) => {
    if (!isClusterMessage(m)) return;
    switch (m.type) {
      case 'sammy:hello':
        worker.send({
          type: 'sammy:welcome',
          records: records.list(),
          firstCounter: Math.ceil(maxRecordId / opts.workers),
        } satisfies ClusterMessage);
        break;
      case 'sammy:record':
        maxRecordId = Math.max(maxRecordId, m.record.id);
        records.add(m.record);
        for (const other of live()) if (other !== worker) other.send(m);
        break;
      case 'sammy:metrics-request':
        aggregator.clusterMetrics().then(
          (text) => worker.isConnected() && worker.send({ type: 'sammy:metrics', id: m.id, text } satisfies ClusterMessage),
          (err: Error) =>
            worker.isConnected() && worker.send({ type: 'sammy:metrics', id: m.id, error: err.message } satisfies ClusterMessage),
        );
        break;
      case 'sammy:started': {
        const state = slots.get(worker);
        if (!m.listening) {
          // Nothing bound (a busy or forbidden port): every worker says the same; say it once and leave.
          if (stopping) return;
          for (const line of m.stderr) error(line);
          stopping = true;
          stopAll('SIGTERM');
          process.exitCode = 1;
          return;
        }
        if (state) state.listening = true;
        if (!announced) {
          announced = true;
          for (const line of m.stdout) log(line);
          for (const line of m.stderr) error(line);
          log(
            `sammy-origin: ${opts.workers} workers (node:cluster) share these ports; /metrics sums them all, and each one's records show every worker's responses`,
          );
        }
        break;
      }
      default:
        break;
    }
  };

  const onExit = (worker: Worker, code: number | null, signal: string | null) => {
    const state = slots.get(worker);
    slots.delete(worker);
    if (stopping || !state) {
      if (slots.size === 0) process.exit();
      return;
    }
    if (!state.listening) {
      error(`sammy-origin: a worker exited (${signal ?? `code ${code}`}) before it served; stopping`);
      stopping = true;
      process.exitCode = 1;
      stopAll('SIGTERM');
      if (slots.size === 0) process.exit();
      return;
    }
    error(`sammy-origin: worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
    const pause = Date.now() - state.startedAt < RESTART_PAUSE_MS ? RESTART_PAUSE_MS : 0;
    setTimeout(() => stopping || fork(state.slot), pause);
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      stopAll('SIGKILL'); // a second Ctrl-C: leave now
      process.exit(130);
    }
    stopping = true;
    log(`\nsammy-origin: ${signal}, closing ${slots.size} workers`);
    stopAll('SIGTERM');
    if (slots.size === 0) process.exit();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  for (let slot = 0; slot < opts.workers; slot++) fork(slot);
}

/** This worker's place in the cluster, from the environment the primary gave it. */
function workerSlot(): { slot: number; workers: number } {
  const slot = Number(process.env.SAMMY_WORKER_SLOT);
  const workers = Number(process.env.SAMMY_WORKERS);
  if (!cluster.isWorker || !Number.isInteger(slot) || !Number.isInteger(workers) || workers < 1) {
    throw new Error('not a sammy-origin cluster worker (started by runPrimary)');
  }
  return { slot, workers };
}

function send(message: ClusterMessage): void {
  if (process.connected) process.send!(message);
}

/** The records log of a worker: ids unique across the cluster, its own records passed on, the others' taken in. */
class ClusterRecordLog extends DeliveryRecordLog {
  #counter: number;
  readonly #slot: number;
  readonly #workers: number;
  /** Adding a record another worker served: not to be sent back. */
  relaying = false;

  constructor(slot: number, workers: number, firstCounter: number, capacity?: number) {
    super(capacity);
    this.#slot = slot;
    this.#workers = workers;
    this.#counter = firstCounter;
  }

  override allocateId(): number {
    return this.#counter++ * this.#workers + this.#slot + 1;
  }

  addRelayed(record: DeliveryRecord): void {
    this.relaying = true;
    try {
      this.add(record);
    } finally {
      this.relaying = false;
    }
  }
}

/**
 * The records log for a worker: asks the primary for the records so far (a replacement worker starts with them),
 * then sends each of its own and takes in the others'.
 */
export async function joinClusterRecords(capacity?: number): Promise<DeliveryRecordLog> {
  const { slot, workers } = workerSlot();
  const welcome = await new Promise<Extract<ClusterMessage, { type: 'sammy:welcome' }>>((resolve) => {
    const onMessage = (m: unknown) => {
      if (!isClusterMessage(m) || m.type !== 'sammy:welcome') return;
      process.off('message', onMessage);
      resolve(m);
    };
    process.on('message', onMessage);
    send({ type: 'sammy:hello' });
  });
  const log = new ClusterRecordLog(slot, workers, welcome.firstCounter, capacity);
  for (const record of welcome.records) log.addRelayed(record);
  log.subscribe((record) => {
    if (!log.relaying) send({ type: 'sammy:record', record });
  });
  process.on('message', (m: unknown) => {
    if (isClusterMessage(m) && m.type === 'sammy:record') log.addRelayed(m.record);
  });
  return log;
}

/** How long a worker waits for the primary's sum of every worker's metrics (prom-client's own limit is 5 s). */
const METRICS_TIMEOUT_MS = 6000;

/** The registry a worker's /metrics serves: the whole cluster's, summed by the primary. */
class ClusterMetricsRegistry extends AggregatorRegistry<PrometheusContentType> {
  #nextId = 0;
  readonly #pending = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();

  constructor() {
    super();
    process.on('message', (m: unknown) => {
      if (!isClusterMessage(m) || m.type !== 'sammy:metrics') return;
      const request = this.#pending.get(m.id);
      if (!request) return;
      this.#pending.delete(m.id);
      clearTimeout(request.timer);
      if (m.text !== undefined) request.resolve(m.text);
      else request.reject(new Error(`cluster metrics: ${m.error ?? 'no answer'}`));
    });
  }

  override metrics(): Promise<string> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error('cluster metrics: the primary did not answer'));
      }, METRICS_TIMEOUT_MS);
      this.#pending.set(id, { resolve, reject, timer });
      send({ type: 'sammy:metrics-request', id });
    });
  }
}

/**
 * In a worker: `local` (where its pacing metrics go) answers the primary's collection, and the returned registry,
 * served at /metrics, is the cluster's sum.
 */
export function clusterMetricsRegistry(local: MetricsRegistry): MetricsRegistry {
  workerSlot();
  AggregatorRegistry.setRegistries([local as unknown as Registry]);
  return new ClusterMetricsRegistry() as unknown as MetricsRegistry;
}

/** In a worker: hands its start-up lines to the primary, which prints them once for the cluster. */
export function reportStarted(message: Omit<WorkerStarted, 'type'>): void {
  send({ type: 'sammy:started', ...message });
}

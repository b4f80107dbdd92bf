/**
 * `sammyRecords(log)`: an opt-in handler that publishes delivery records — JSON at RECORDS_PATH and
 * Server-Sent Events at RECORD_EVENTS_PATH. Records name every viewer's paths and timings, so the
 * pacing middleware never serves them: mount this only where its readers are trusted (a demo on
 * localhost, a lab, behind your own auth), and before `sammyPacing()` so its own responses are
 * neither paced nor recorded.
 *
 * Memory stays bounded whatever subscribers do: their number is capped (503 beyond), and a
 * subscriber that reads too slowly skips records (and is told how many) instead of queueing them;
 * one that stays behind for `stalledTimeoutMs` is disconnected.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { RECORD_EVENT, RECORD_EVENTS_PATH, RECORDS_PATH, RECORDS_SKIPPED_EVENT, type RecordsSkipped } from 'sammy-pacing-protocol';
import { checkOptions, wrongType, isNumber, type OptionCheck, type OptionChecks } from '../option-check.js';
import { DeliveryRecordLog } from './log.js';
import { pathOf } from 'sammy-pacing-protocol';
import { setSendBuffer, socketFd } from '../socket/socket-options.js';

export const DEFAULT_MAX_RECORD_SUBSCRIBERS = 16;
/**
 * Event streams one remote address may hold: a demo page opens one, a few tabs a few; one client
 * must not take every slot (the probe held all 16).
 */
export const DEFAULT_MAX_RECORD_SUBSCRIBERS_PER_CLIENT = 4;
/** About 700 records of ~350 bytes: a few seconds of a busy origin, enough to ride out a slow reader's hiccup. */
export const DEFAULT_MAX_QUEUED_BYTES = 256 * 1024;
export const DEFAULT_STALLED_TIMEOUT_MS = 60_000;
/** SSE comment interval: keeps proxies from timing the stream out, and checks stalled subscribers. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/**
 * Kernel send buffer of an event stream's socket (the kernel doubles it). Without it the buffer
 * autotunes up to tcp_wmem's maximum (4 MB by default) for a subscriber that does not read.
 */
const STREAM_SEND_BUFFER_BYTES = 64 * 1024;

/** `localhost`, 127.0.0.0/8 or ::1 (IPv4-mapped too), with or without brackets: only this machine can be reached by it. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

/** The host name of a `Host` header or `:authority`, without its port (`[::1]:8080` → `::1`). */
function hostName(authority: string): string {
  const bracketed = /^\[([^\]]*)\]/.exec(authority);
  if (bracketed) return bracketed[1]!.toLowerCase();
  const colons = authority.split(':').length - 1;
  return (colons === 1 ? authority.slice(0, authority.indexOf(':')) : authority).toLowerCase();
}

export interface SammyRecordsOptions {
  /**
   * Host names (without port) the records are served under, besides this machine's loopback names
   * (`localhost`, 127.0.0.0/8, `::1`), which are always allowed; `'any'` turns the check off. Any other
   * `Host` is answered 403: a page on another site that rebinds its DNS name to this server must not
   * read every viewer's records through the visitor's browser. Default: loopback names only.
   */
  allowedHosts?: readonly string[] | 'any';
  /** Most event streams open at once; more are answered 503. Default 16. */
  maxSubscribers?: number;
  /** Most event streams one remote address may hold; more are answered 429. Default 4. */
  maxSubscribersPerClient?: number;
  /**
   * Bytes a subscriber may have waiting in the server (written, not yet taken by its socket)
   * before further records are skipped for it. Default 256 KiB.
   */
  maxQueuedBytes?: number;
  /** A subscriber that stays behind (over maxQueuedBytes) this long is disconnected. Default 60 s. */
  stalledTimeoutMs?: number;
  /** Default 15 s. */
  heartbeatMs?: number;
}

/** One open event stream, as the handler sees it. */
export interface RecordSubscriberState {
  /** Bytes written to the stream and not yet taken by the socket. */
  readonly queuedBytes: number;
  /** Records skipped since the subscriber last caught up (reported in the next `skipped` event). */
  readonly pendingSkipped: number;
  /** Records skipped over the stream's life. */
  readonly totalSkipped: number;
}

export interface SammyRecordsHandler {
  (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void;
  /** Open event streams. */
  subscribers(): RecordSubscriberState[];
  /** Ends every event stream (call when the server closes). */
  close(): void;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`sammyRecords: ${name} must be a positive number, got ${value}`);
  return value;
}

/** `allowedHosts` of the records and the metrics endpoint: host names, or `'any'`. */
export const isAllowedHosts: OptionCheck<readonly string[] | 'any'> = (value, name) => {
  if (value === 'any' || (Array.isArray(value) && value.every((h) => typeof h === 'string'))) return;
  throw wrongType(name, "an array of host names or 'any'", value);
};

/** `sammyRecords()`'s options, one check each. */
const RECORDS_OPTION_CHECKS: OptionChecks<SammyRecordsOptions> = {
  allowedHosts: isAllowedHosts,
  maxSubscribers: isNumber,
  maxSubscribersPerClient: isNumber,
  maxQueuedBytes: isNumber,
  stalledTimeoutMs: isNumber,
  heartbeatMs: isNumber,
};

function requestPath(req: IncomingMessage): string {
  // Express rewrites req.url under a mount path; originalUrl is what the client asked for.
  return pathOf((req as { originalUrl?: string }).originalUrl ?? req.url ?? '/');
}

class Subscriber implements RecordSubscriberState {
  pendingSkipped = 0;
  totalSkipped = 0;
  /** performance.now() when this subscriber fell behind; undefined while it keeps up. */
  #behindSince: number | undefined;
  #ended = false;
  readonly #heartbeat: NodeJS.Timeout;

  constructor(
    readonly res: ServerResponse,
    readonly limits: { maxQueuedBytes: number; stalledTimeoutMs: number; heartbeatMs: number },
    readonly onEnd: (s: Subscriber) => void,
  ) {
    this.#heartbeat = setInterval(() => this.#write(': ping\n\n'), limits.heartbeatMs);
    this.#heartbeat.unref();
    res.once('close', () => this.end());
    res.on('drain', () => {
      this.#behindSince = undefined;
    });
  }

  get queuedBytes(): number {
    return this.res.writableLength;
  }

  /** Sends one record event (serialised once for every subscriber), or counts it skipped. */
  send(event: string): void {
    if (!this.#write(event)) {
      this.pendingSkipped++;
      this.totalSkipped++;
    }
  }

  /** Writes `text` unless the subscriber is behind; one behind for stalledTimeoutMs is dropped. */
  #write(text: string): boolean {
    if (this.#ended) return false;
    if (this.res.writableLength > this.limits.maxQueuedBytes) {
      const now = performance.now();
      this.#behindSince ??= now;
      if (now - this.#behindSince >= this.limits.stalledTimeoutMs) this.drop();
      return false;
    }
    this.#behindSince = undefined;
    if (this.pendingSkipped > 0) {
      const skipped: RecordsSkipped = { count: this.pendingSkipped };
      this.pendingSkipped = 0;
      this.res.write(`event: ${RECORDS_SKIPPED_EVENT}\ndata: ${JSON.stringify(skipped)}\n\n`);
    }
    this.res.write(text);
    return true;
  }

  /** Disconnects at once: an end() would wait behind the queue the subscriber does not read. */
  drop(): void {
    this.end();
    this.res.destroy();
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#heartbeat);
    if (!this.res.writableEnded) this.res.end();
    this.onEnd(this);
  }
}

type SubscriberLimits = Subscriber['limits'];

/** The options checked once: how many may subscribe, and each subscriber's limits. */
function resolveRecordsOptions(options: SammyRecordsOptions): {
  maxSubscribers: number;
  maxSubscribersPerClient: number;
  limits: SubscriberLimits;
} {
  const maxSubscribers = positive('maxSubscribers', options.maxSubscribers ?? DEFAULT_MAX_RECORD_SUBSCRIBERS);
  const maxSubscribersPerClient = positive(
    'maxSubscribersPerClient',
    options.maxSubscribersPerClient ?? DEFAULT_MAX_RECORD_SUBSCRIBERS_PER_CLIENT,
  );
  const limits = {
    maxQueuedBytes: positive('maxQueuedBytes', options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES),
    stalledTimeoutMs: options.stalledTimeoutMs ?? DEFAULT_STALLED_TIMEOUT_MS,
    heartbeatMs: positive('heartbeatMs', options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS),
  };
  if (!Number.isFinite(limits.stalledTimeoutMs) || limits.stalledTimeoutMs < 0) {
    throw new RangeError(`sammyRecords: stalledTimeoutMs must be a non-negative number, got ${limits.stalledTimeoutMs}`);
  }
  return { maxSubscribers, maxSubscribersPerClient, limits };
}

/** Whether a request names this server by a host the records may be served under (loopback, or `allowedHosts`). */
export function hostCheck(allowed: SammyRecordsOptions['allowedHosts']): (req: IncomingMessage) => boolean {
  if (allowed === 'any') return () => true;
  const names = new Set((allowed ?? []).map((h) => hostName(h)));
  return (req) => {
    const authority = req.headers[':authority'] ?? req.headers.host;
    if (typeof authority !== 'string' || authority === '') return false;
    const name = hostName(authority);
    return isLoopbackHost(name) || names.has(name);
  };
}

/** The event streams' subscribers, and one listener on the log while anyone subscribes: each record is serialised once. */
class RecordStreams {
  readonly #subscribers = new Set<Subscriber>();
  /** Open streams per remote address (an entry only while it has one). */
  readonly #perClient = new Map<string, number>();
  #unsubscribe: (() => void) | undefined;

  constructor(
    readonly log: DeliveryRecordLog,
    readonly maxSubscribers: number,
    readonly maxSubscribersPerClient: number,
    readonly limits: SubscriberLimits,
  ) {}

  /** Answers a GET or HEAD of the event stream: 503 when full, else the stream, records as they end. */
  open(req: IncomingMessage, res: ServerResponse): void {
    if (this.#subscribers.size >= this.maxSubscribers) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'Retry-After': '30' });
      res.end(`too many record subscribers (${this.maxSubscribers})\n`);
      return;
    }
    const client = req.socket?.remoteAddress ?? '';
    const held = this.#perClient.get(client) ?? 0;
    if (held >= this.maxSubscribersPerClient) {
      res.writeHead(429, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'Retry-After': '30' });
      res.end(`too many record subscribers from one client (${this.maxSubscribersPerClient})\n`);
      return;
    }
    // HTTP/2 shares the connection with the player's media: no connection-level header (h2 forbids it),
    // and no send-buffer size of the event stream's own on a socket that also carries paced segments.
    const shared = req.httpVersionMajor === 2;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      ...(shared ? {} : { Connection: 'keep-alive' }),
      'X-Accel-Buffering': 'no',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const fd = shared ? undefined : socketFd(req.socket);
    try {
      if (fd !== undefined) setSendBuffer(fd, STREAM_SEND_BUFFER_BYTES);
    } catch {
      // Not Linux, or koffi unavailable: the queue bound still holds, the kernel's buffer is its default.
    }
    res.write(': sammy delivery records\nretry: 2000\n\n');
    this.#perClient.set(client, held + 1);
    this.#subscribers.add(
      new Subscriber(res, this.limits, (s) => {
        const left = (this.#perClient.get(client) ?? 1) - 1;
        if (left > 0) this.#perClient.set(client, left);
        else this.#perClient.delete(client);
        this.#leave(s);
      }),
    );
    this.#unsubscribe ??= this.log.subscribe((record) => {
      const event = `event: ${RECORD_EVENT}\ndata: ${JSON.stringify(record)}\n\n`;
      for (const s of this.#subscribers) s.send(event);
    });
  }

  #leave(s: Subscriber): void {
    this.#subscribers.delete(s);
    if (this.#subscribers.size > 0) return;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  states(): RecordSubscriberState[] {
    return [...this.#subscribers].map((s) => ({
      queuedBytes: s.queuedBytes,
      pendingSkipped: s.pendingSkipped,
      totalSkipped: s.totalSkipped,
    }));
  }

  close(): void {
    for (const s of [...this.#subscribers]) s.end();
  }
}

export function sammyRecords(log: DeliveryRecordLog, input: SammyRecordsOptions = {}): SammyRecordsHandler {
  if (!(log instanceof DeliveryRecordLog)) throw wrongType('sammyRecords: log', 'a DeliveryRecordLog (sammyPacing().records)', log);
  const options = checkOptions('sammyRecords', input, RECORDS_OPTION_CHECKS);
  const { maxSubscribers, maxSubscribersPerClient, limits } = resolveRecordsOptions(options);
  const hostAllowed = hostCheck(options.allowedHosts);
  const streams = new RecordStreams(log, maxSubscribers, maxSubscribersPerClient, limits);
  const handler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = requestPath(req);
    if (path !== RECORDS_PATH && path !== RECORD_EVENTS_PATH) return next();
    if (!hostAllowed(req)) {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end("delivery records are served only under this server's own host names\n");
      return;
    }
    if (path === RECORD_EVENTS_PATH) return streams.open(req, res);
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.end(JSON.stringify(log.list()));
  };
  return Object.assign(handler, { subscribers: () => streams.states(), close: () => streams.close() });
}

/** One timed HTTP GET as a player sees it, with what the benchmark needs to explain its rate. */
import { request, type Agent } from 'node:http';
import { kbpsToBytesPerSecond, parseServerTiming, type PacingReport } from 'sammy-pacing-protocol';

export interface Transfer {
  status: number;
  bytes: number;
  /** From the request (connection set-up included when the connection is new) to the last byte, seconds. */
  seconds: number;
  /** Request to first body byte, ms. */
  ttfbMs: number;
  /** Body rate over `seconds`, kbps. */
  rateKbps: number;
  /** Body rate from the first body byte to the last, kbps: the pacing alone, without set-up and server latency. */
  bodyRateKbps: number;
  /**
   * Largest lead over a perfect pacer at `paceKbps` that starts with the first body byte: the bytes that
   * arrived before pacing took hold. Undefined without a pace.
   */
  aheadBytes?: number;
  /** What the server said it did (Server-Timing). */
  report: PacingReport;
}

export interface TransferOptions {
  /** Default: a new connection (no agent). */
  agent?: Agent | false;
  /** The pace asked for; enables `aheadBytes`. */
  paceKbps?: number;
  timeoutMs?: number;
}

export function timedGet(url: string, opts: TransferOptions = {}): Promise<Transfer> {
  const bytesPerMs = opts.paceKbps === undefined ? undefined : kbpsToBytesPerSecond(opts.paceKbps) / 1000;
  return new Promise((resolve, reject) => {
    const sentAt = performance.now();
    let firstAt = 0;
    let bytes = 0;
    let ahead = 0;
    const req = request(url, { agent: opts.agent ?? false }, (res) => {
      res.on('data', (chunk: Buffer) => {
        const now = performance.now();
        if (bytes === 0) firstAt = now;
        bytes += chunk.length;
        if (bytesPerMs !== undefined) ahead = Math.max(ahead, bytes - bytesPerMs * (now - firstAt));
      });
      res.on('end', () => {
        const ms = performance.now() - sentAt;
        resolve({
          status: res.statusCode ?? 0,
          bytes,
          seconds: ms / 1000,
          ttfbMs: firstAt - sentAt,
          rateKbps: (bytes * 8) / ms,
          bodyRateKbps: (bytes * 8) / (performance.now() - firstAt),
          aheadBytes: bytesPerMs === undefined ? undefined : ahead,
          report: parseServerTiming([res.headers['server-timing'] ?? []].flat().join(', ')),
        });
      });
      res.on('error', reject);
    });
    req.setTimeout(opts.timeoutMs ?? 60_000, () => req.destroy(new Error(`no progress for ${opts.timeoutMs ?? 60_000} ms`)));
    req.on('error', reject);
    req.end();
  });
}

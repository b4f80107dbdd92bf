/**
 * Follows one response to its end and produces its delivery record. "End" is the last byte
 * acknowledged, read from TCP_INFO: with kernel pacing most of the body can still sit in the
 * socket buffer when Node reports `finish`. Without TCP_INFO it is `finish`.
 */
import type { ServerResponse } from 'node:http';
import type { NewDeliveryRecord } from './delivery-records.js';
import type { ConnectionSocket } from './connection.js';
import type { ResponseMeter } from './response-meter.js';
import type { TcpInfo } from './tcp-info.js';

/** Longest wait for the last byte's acknowledgement after `finish`. */
const MAX_ACK_WAIT_MS = 30_000;
const MIN_POLL_MS = 2;
const MAX_POLL_MS = 250;
/** Poll interval when the pace is unknown (unpaced responses drain fast). */
const UNPACED_POLL_MS = 5;

export type TrackedFields = Omit<NewDeliveryRecord, 'path' | 'requestedRtpKbps' | 'appliedPaceKbps' | 'mechanism' | 'congestionControl'>;

export interface DeliveryTracking {
  res: ServerResponse;
  conn: ConnectionSocket;
  meter: ResponseMeter;
  retransmitsBefore?: number;
  paceBytesPerSecond?: number;
  /** Node is done with the response (finished or closed). */
  onResponseDone(): void;
  /** Exactly once. */
  onRecord(fields: TrackedFields): void;
}

function readInfo(conn: ConnectionSocket): TcpInfo | undefined {
  try {
    return conn.tcpInfo();
  } catch {
    return undefined;
  }
}

/**
 * Stream offset the response's last byte will have once acknowledged: everything handed to the
 * socket so far. Compared with bytes_acked it ignores whatever a later response on the same
 * kept-alive connection writes.
 */
function endOffset(info: TcpInfo): bigint | undefined {
  if (info.bytesSent === undefined || info.bytesRetrans === undefined || info.bytesAcked === undefined) return undefined;
  return info.bytesSent - info.bytesRetrans + BigInt(info.notsentBytes ?? 0);
}

/** Starts tracking; the returned function ends it now (server closing), recording what is known. */
export function trackDelivery(t: DeliveryTracking): () => void {
  const requestAt = performance.now();
  const wallOffset = Date.now() - requestAt;
  let timer: NodeJS.Timeout | undefined;
  let target: bigint | undefined;
  let finishedAt: number | undefined;
  let responseDone = false;
  let recorded = false;

  const responseEnded = () => {
    if (responseDone) return;
    responseDone = true;
    t.onResponseDone();
  };

  const record = (endAt: number, aborted: boolean, info?: TcpInfo) => {
    if (recorded) return;
    recorded = true;
    if (timer) clearTimeout(timer);
    timer = undefined;
    t.res.off('finish', onFinish);
    t.res.off('close', onClose);
    t.conn.socket.off('close', onSocketClose);
    responseEnded();
    const startAt = t.meter.firstByteAt ?? requestAt;
    const durationMs = Math.max(0, endAt - startAt);
    const bytes = t.meter.bytes;
    t.onRecord({
      status: t.res.statusCode,
      bytes,
      startedAt: Math.round(wallOffset + startAt),
      finishedAt: Math.round(wallOffset + endAt),
      durationMs,
      // bits per millisecond = kbps
      achievedKbps: durationMs > 0 ? (bytes * 8) / durationMs : 0,
      retransmits: info && t.retransmitsBefore !== undefined ? info.totalRetrans - t.retransmitsBefore : undefined,
      rttMs: info ? info.rttUs / 1000 : undefined,
      aborted,
    });
  };

  const poll = () => {
    timer = undefined;
    const info = readInfo(t.conn);
    const now = performance.now();
    target ??= info && endOffset(info);
    if (!info || target === undefined || info.bytesAcked === undefined) return record(finishedAt ?? now, false, info);
    const left = Number(target - info.bytesAcked);
    if (left <= 0 || now - (finishedAt ?? now) > MAX_ACK_WAIT_MS) return record(now, false, info);
    const wait = t.paceBytesPerSecond ? (left * 1000) / t.paceBytesPerSecond / 2 : UNPACED_POLL_MS;
    timer = setTimeout(poll, Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, wait)));
  };

  function onFinish() {
    finishedAt = performance.now();
    responseEnded();
    poll();
  }
  function onClose() {
    // `close` follows `finish` on every response; only a close before it is an abort.
    if (finishedAt === undefined) record(performance.now(), true, readInfo(t.conn));
  }
  function onSocketClose() {
    // After `finish` the client usually closes once it has everything: now is the best estimate of the last byte.
    record(performance.now(), finishedAt === undefined);
  }

  t.res.once('finish', onFinish);
  t.res.once('close', onClose);
  t.conn.socket.once('close', onSocketClose);
  return () => record(performance.now(), finishedAt === undefined, readInfo(t.conn));
}

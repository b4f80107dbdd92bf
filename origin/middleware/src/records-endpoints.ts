/**
 * Serving delivery records: JSON at RECORDS_PATH, Server-Sent Events at RECORD_EVENTS_PATH.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RECORD_EVENT } from 'sammy-pacing-protocol';
import type { DeliveryRecordLog } from './delivery-records.js';

/** SSE comment interval: keeps proxies from timing the stream out. */
const HEARTBEAT_MS = 15_000;

export function serveRecordsJson(log: DeliveryRecordLog, res: ServerResponse): void {
  const body = JSON.stringify(log.list());
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

/** Streams each new record as one `record` event; returns a function that ends the stream. */
export function serveRecordEvents(log: DeliveryRecordLog, req: IncomingMessage, res: ServerResponse): () => void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.write(': sammy delivery records\nretry: 2000\n\n');
  const unsubscribe = log.subscribe((record) => {
    res.write(`event: ${RECORD_EVENT}\nid: ${record.id}\ndata: ${JSON.stringify(record)}\n\n`);
  });
  const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    unsubscribe();
    if (!res.writableEnded) res.end();
  };
  req.once('close', finish);
  res.once('close', finish);
  return finish;
}

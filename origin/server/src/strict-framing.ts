/**
 * HTTP/1 framing checked where node:http is lenient, and a Range request's If-Range judged as RFC 9110
 * says. Each is a way for a request to mean two things to two parsers (this origin and a proxy in
 * front of it), so it is refused rather than guessed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { answer, type Handler } from './static-media.js';

/** 400 with `Connection: close`: after a faulty frame nothing later on the connection can be trusted. */
function refuse(res: ServerResponse | Http2ServerResponse): void {
  // HTTP/2 has no Connection header (and is framed by the protocol, never reaching the checks below).
  (res as ServerResponse).shouldKeepAlive = false;
  answer(res, 400, '400 Bad Request\n');
}

function countHeader(rawHeaders: readonly string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) n++;
  return n;
}

/**
 * - Host more than once: 400 (RFC 9112 §3.2; node:http keeps the first, a proxy may route by another).
 * - Transfer-Encoding on HTTP/1.0: 400 and close (§6.1: a 1.0 recipient cannot know chunked framing,
 *   so the message's length is faulty; node:http parses it as chunked and keeps the connection).
 * Node already refuses HTTP/1.1 without Host (`requireHostHeader`), over TLS too once the server says so.
 */
export const rejectLooseFraming: Handler = (req, res, next) => {
  if (req.httpVersionMajor !== 1) return next();
  const raw = (req as IncomingMessage).rawHeaders;
  if (countHeader(raw, 'host') > 1) return refuse(res);
  if (req.httpVersionMinor === 0 && countHeader(raw, 'transfer-encoding') > 0) return refuse(res);
  next();
};

/**
 * If-Range: a range is sent only on a strong match (RFC 9110 §13.1.5), and a weak entity tag never
 * matches strongly. serve-static's ETags are weak (`W/"size-mtime"`) and `send` finds the client's tag
 * by substring, so a client echoing the weak tag got 206 although its cached copy may differ: such a
 * request loses its Range and gets the whole file (200). A strong tag never equals a weak ETag, and a
 * date is `send`'s to judge.
 */
export const ifRangeStrongOnly: Handler = (req, _res, next) => {
  const ifRange = req.headers['if-range'];
  if (typeof ifRange === 'string' && ifRange.trim().startsWith('W/')) delete (req as IncomingMessage | Http2ServerRequest).headers.range;
  next();
};

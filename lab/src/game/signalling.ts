/**
 * Signalling for the game stream, served by the lab server: a mailbox per room with one offer and one
 * answer (complete SDP, ICE candidates gathered before posting: no trickle, so two requests and two
 * polls set a call up). The sender posts its offer and polls for the answer; the receiver polls for
 * the offer and posts its answer.
 *
 *   PUT  /lab/signal/<room>/<offer|answer>   body: the SDP as JSON ({type, sdp}), ≤ 64 KiB → 204
 *   GET  /lab/signal/<room>/<offer|answer>   → 200 with the body, or 404 while nothing was posted
 *   DELETE /lab/signal/<room>                → 204 (a new call in the same room starts clean)
 *
 * Rooms are few (one per run) and bounded: the oldest goes when MAX_ROOMS would be exceeded.
 */
export const SIGNAL_PATH = '/lab/signal';
export const SIGNAL_KINDS = ['offer', 'answer'] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];
export const MAX_SIGNAL_BYTES = 64 * 1024;
export const MAX_ROOMS = 64;
const ROOM_RE = /^[A-Za-z0-9._-]{1,100}$/;

/** The parts of node:http's and node:http2's compatibility objects the handler uses. */
export interface SignalRequest {
  method?: string;
  url?: string;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end' | 'error', listener: (arg?: unknown) => void): unknown;
}
export interface SignalResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

export class SignalMailbox {
  readonly #rooms = new Map<string, Map<SignalKind, string>>();

  post(room: string, kind: SignalKind, body: string): void {
    let r = this.#rooms.get(room);
    if (!r) {
      if (this.#rooms.size >= MAX_ROOMS) this.#rooms.delete(this.#rooms.keys().next().value as string);
      this.#rooms.set(room, (r = new Map()));
    }
    r.set(kind, body);
  }

  read(room: string, kind: SignalKind): string | undefined {
    return this.#rooms.get(room)?.get(kind);
  }

  clear(room: string): void {
    this.#rooms.delete(room);
  }

  get rooms(): number {
    return this.#rooms.size;
  }
}

/** Parses `/lab/signal/<room>[/<kind>]` (query ignored); undefined for any other path. */
export function parseSignalPath(url: string): { room: string; kind?: SignalKind } | undefined {
  const path = url.split('?')[0] ?? '';
  if (!path.startsWith(`${SIGNAL_PATH}/`)) return undefined;
  const parts = path.slice(SIGNAL_PATH.length + 1).split('/');
  const [room, kind, ...rest] = parts;
  if (!room || !ROOM_RE.test(room) || rest.length > 0) return undefined;
  if (kind === undefined) return { room };
  if (!(SIGNAL_KINDS as readonly string[]).includes(kind)) return undefined;
  return { room, kind: kind as SignalKind };
}

function reply(res: SignalResponse, status: number, body?: string): void {
  res.statusCode = status;
  res.setHeader('Cache-Control', 'no-store');
  if (body !== undefined) res.setHeader('Content-Type', 'application/json');
  res.end(body);
}

/**
 * A handler for the lab server: answers every request under SIGNAL_PATH and returns true, or returns
 * false (the request is someone else's).
 */
export function signalHandler(mailbox: SignalMailbox): (req: SignalRequest, res: SignalResponse) => boolean {
  return (req, res) => {
    if (!(req.url ?? '').startsWith(`${SIGNAL_PATH}/`)) return false;
    const where = parseSignalPath(req.url ?? '');
    if (!where) {
      reply(res, 404);
      return true;
    }
    const method = req.method ?? 'GET';
    if (method === 'DELETE' && where.kind === undefined) {
      mailbox.clear(where.room);
      reply(res, 204);
      return true;
    }
    if (where.kind === undefined) {
      reply(res, 405);
      return true;
    }
    const kind = where.kind;
    if (method === 'GET') {
      const body = mailbox.read(where.room, kind);
      if (body === undefined) reply(res, 404);
      else reply(res, 200, body);
      return true;
    }
    if (method !== 'PUT' && method !== 'POST') {
      reply(res, 405);
      return true;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_SIGNAL_BYTES) tooLarge = true;
      else chunks.push(c);
    });
    req.on('error', () => reply(res, 400));
    req.on('end', () => {
      if (tooLarge) return reply(res, 413);
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const sdp = JSON.parse(body) as { type?: unknown; sdp?: unknown };
        if (sdp.type !== kind || typeof sdp.sdp !== 'string') return reply(res, 400);
      } catch {
        return reply(res, 400);
      }
      mailbox.post(where.room, kind, body);
      reply(res, 204);
    });
    return true;
  };
}

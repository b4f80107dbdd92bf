/**
 * Pacing a connection that several requests share at once (HTTP/2, HTTP/3): the rules every Sammy
 * server follows — the Express middleware, the Fastly and Varnish VCL — defined once, here.
 *
 * A socket pace applies to the whole connection. On HTTP/1.1 a connection carries one response at a
 * time, so each response gets its own rtp and a request without one is unpaced (a pace must not
 * stick to a kept-alive connection). On a shared connection that rule breaks both ways: a manifest
 * refresh, an init segment or a player's CMCD without rtp, arriving while a paced segment is still
 * being sent, would unpace that segment; and an audio request's small rtp would throttle a
 * concurrent video download. Sammy's own players send one session-wide rtp (top video + top audio)
 * on every media request, so the pace of the busiest request always suits the others; other players
 * (dash.js's, Shaka's own rtp) send a per-rendition rtp, audio's far below video's.
 *
 * Invariants, each tested by every server:
 * 1. A paced response is never unpaced, nor re-paced lower, by a concurrent request on the same
 *    connection that carries a smaller rtp, or no rtp and is not a media segment (a manifest, an
 *    init segment, no CMCD `ot`): while the connection is busy the pace only rises (to the largest
 *    rtp among the requests in flight).
 * 2. A media segment without rtp (CMCD `ot` a, v or av) unpaces the connection, busy or not: it is a
 *    Sammy player in its initial phase — starting, or after a seek or a stall — where it asks for no
 *    pace so that the new position plays at once. Kept, the old pace would hold back the new
 *    position's segments behind the bytes of a download the seek left behind (the package README,
 *    "Shared connections", has the seek times measured).
 * 3. A pace never outlives the media session: a request without rtp on an idle connection is unpaced,
 *    and a request with an rtp on an idle connection gets exactly its own rtp (lower or higher).
 * 4. HTTP/1.1 is unchanged: every response is paced at its own rtp, or unpaced without one.
 *
 * "Busy" is what a server can see of other responses still sending: the Express middleware knows each
 * stream and the kernel's send queue (another response still being written, or bytes of one still
 * unsent in Node or the kernel — the pace applies to bytes as they leave, so bytes sent and only
 * awaiting their acknowledgement no longer need it); an edge that cannot see streams (Fastly VCL) takes a connection that sent data within
 * SHARED_CONNECTION_IDLE_MS, or still has unsent bytes, as busy. The CMCD object type (`ot`) tells a
 * media segment without rtp (rule 2) from a manifest or init request (rule 1), and travels in
 * records and Server-Timing so the interleaving can be seen.
 */

/** CMCD object types (CTA-5004 `ot`): manifest, audio, video, muxed, init, caption, timed text, key, other. */
export const CMCD_OBJECT_TYPES = ['m', 'a', 'v', 'av', 'i', 'c', 'tt', 'k', 'o'] as const;
export type CmcdObjectType = (typeof CMCD_OBJECT_TYPES)[number];

export function isCmcdObjectType(value: unknown): value is CmcdObjectType {
  return typeof value === 'string' && (CMCD_OBJECT_TYPES as readonly string[]).includes(value);
}

/** The object types of media segments: audio, video, muxed. */
export const MEDIA_OBJECT_TYPES: readonly CmcdObjectType[] = ['a', 'v', 'av'];

function isMediaObjectType(value: CmcdObjectType | undefined): boolean {
  return value !== undefined && MEDIA_OBJECT_TYPES.includes(value);
}

/**
 * A connection that sent nothing for this long, with nothing left unsent, counts as idle where a
 * server cannot see its streams, ms. A paced transfer sends every few ms (the kernel releases about
 * a millisecond of data per burst) and a player's requests for audio and video follow one another
 * within tens of ms, while a playing session with a full buffer asks once per segment (2–10 s):
 * half a second separates the two with room to spare.
 */
export const SHARED_CONNECTION_IDLE_MS = 500;

export interface ConnectionPaceInput {
  /** The connection carries concurrent requests (HTTP/2, HTTP/3); false for HTTP/1.x. */
  shared: boolean;
  /** This request's pace, kbps, after clamping to the server's bounds; undefined when it carries no rtp. */
  requestPaceKbps: number | undefined;
  /** The pace now on the connection, kbps; undefined when it is unpaced. */
  connectionPaceKbps: number | undefined;
  /** Another response on this connection is still being sent (see the module comment). */
  busy: boolean;
  /** The request's CMCD object type (`ot`), when it carried one: a media segment without rtp unpaces (rule 2). */
  objectType?: CmcdObjectType;
}

/**
 * Why the connection has the pace it has after a request:
 * - `own`: the request's own rtp (or none) decided — on an idle connection, or a media segment without rtp;
 * - `kept`: a concurrent paced response keeps the connection's pace (no rtp, or a smaller one);
 * - `raised`: the request's rtp is above a concurrent response's pace and raised it.
 */
export type ConnectionPaceReason = 'own' | 'kept' | 'raised';
export const CONNECTION_PACE_REASONS: readonly ConnectionPaceReason[] = ['own', 'kept', 'raised'];

export function isConnectionPaceReason(value: unknown): value is ConnectionPaceReason {
  return typeof value === 'string' && (CONNECTION_PACE_REASONS as readonly string[]).includes(value);
}

export interface ConnectionPaceDecision {
  /** The pace to put on the connection, kbps; undefined to unpace it. */
  paceKbps: number | undefined;
  reason: ConnectionPaceReason;
}

/** The connection's pace once this request arrives (invariants in the module comment). */
export function decideConnectionPace(input: ConnectionPaceInput): ConnectionPaceDecision {
  const { shared, requestPaceKbps, connectionPaceKbps, busy } = input;
  if (!shared || !busy || connectionPaceKbps === undefined) return { paceKbps: requestPaceKbps, reason: 'own' };
  if (requestPaceKbps === undefined && isMediaObjectType(input.objectType)) return { paceKbps: undefined, reason: 'own' };
  if (requestPaceKbps === undefined || requestPaceKbps <= connectionPaceKbps) return { paceKbps: connectionPaceKbps, reason: 'kept' };
  return { paceKbps: requestPaceKbps, reason: 'raised' };
}

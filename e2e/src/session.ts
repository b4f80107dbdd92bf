/**
 * What a test watches in a playing page: every media request as it left the browser (captured by
 * Playwright, outside the page), and, inside the page, the plugin's decisions and samples, the
 * first `playing` of the <video>, player errors and console errors.
 */
import { expect, type Page, type Request, type Response } from '@playwright/test';
import { mediaSegmentOf } from '@sammy/test-content';
import { validateCmcdRequest, type CmcdDataValidationResult } from '@svta/cml-cmcd';
import { get as httpsGet } from 'node:https';
import {
  isCmcdParam,
  parseServerTiming,
  pathOf,
  readRtp,
  RECORDS_PATH,
  splitUrl,
  type DeliveryRecord,
  type PacingReport,
} from 'sammy-pacing-protocol';
import { median as medianOf } from 'sammy-pacing-protocol/measure';
import type { SammyDecision, SegmentSample } from 'sammy-pacing-dashjs';

/** What the init script collects in the page (window.__e2e). */
export interface PageLog {
  decisions: SammyDecision[];
  samples: SegmentSample[];
  /** Date.now() of the first `playing` event of any media element. */
  playingAt: number | undefined;
  /**
   * Stalls after playback started, as the media element showed them (not as the plugin saw them):
   * from a `waiting`, or a player setting the playback rate to 0 (Shaka stalls that way), until
   * `playing` or a non-zero rate again. Date.now() times; `resumedAt` undefined while stalled.
   */
  stalls: { at: number; resumedAt: number | undefined }[];
  /** Seeks after playback started: from `seeking` until the next `playing`, as `stalls`; and the media time it played from. */
  seeks: { at: number; resumedAt: number | undefined; resumedAtSeconds?: number }[];
  playerErrors: string[];
}

declare global {
  interface Window {
    __e2e?: PageLog;
  }
}

export interface CapturedRequest {
  url: string;
  /** Path without query: what the plugin's decision and the origin's record name. */
  path: string;
  headers: Record<string, string>;
  isSegment: boolean;
  /** Date.now() when Playwright saw it leave (same clock as the page's Date.now()). */
  time: number;
  /** The request carries the CMCD query parameter. */
  cmcdInQuery: boolean;
  /** The request carries CMCD-* headers. */
  cmcdInHeaders: boolean;
  /** The request carries CMCD at all (query parameter or CMCD-* headers). */
  hasCmcd: boolean;
  cmcd: CmcdDataValidationResult;
  /** The `rtp` the request carried, kbps, from the CMCD query parameter or the CMCD-Status header. */
  rtp: number | undefined;
  /** `finished` once the whole response arrived, `failed` if it was aborted or refused. */
  outcome: 'pending' | 'finished' | 'failed';
  /**
   * Id of the origin's delivery record for this response (its Server-Timing `sammy-id`), set when
   * the response finished. The one way a test finds a request's record: never by path and time.
   */
  recordId: number | undefined;
  /** The response's whole Server-Timing report, set with `recordId`. */
  serverTiming: PacingReport | undefined;
}

function capture(request: Request): CapturedRequest {
  const url = request.url();
  const path = pathOf(url);
  const headers = request.headers();
  const cmcd = validateCmcdRequest({ url, headers });
  // What the origin reads: the query's rtp first, then CMCD-Status.
  const rtp = readRtp({ url, headers });
  // Playwright gives header names in lower case.
  const cmcdInQuery = splitUrl(url).params.some(isCmcdParam);
  const cmcdInHeaders = Object.keys(headers).some((h) => h.startsWith('cmcd-'));
  return {
    url,
    path,
    headers,
    isSegment: mediaSegmentOf(path) !== undefined,
    time: Date.now(),
    cmcdInQuery,
    cmcdInHeaders,
    hasCmcd: cmcdInQuery || cmcdInHeaders,
    cmcd,
    rtp: rtp.kind === 'rtp' ? rtp.rtpKbps : undefined,
    outcome: 'pending',
    recordId: undefined,
    serverTiming: undefined,
  };
}

/** The response's Server-Timing and the record id it names. */
async function readServerTiming(response: Response, captured: CapturedRequest): Promise<void> {
  const header = await response.headerValue('server-timing');
  captured.serverTiming = header ? parseServerTiming(header) : undefined;
  captured.recordId = captured.serverTiming?.recordId;
}

/**
 * Marks a captured request finished, once its response's Server-Timing (read when its headers
 * arrived, `headersRead`; else here) has given the record id.
 */
async function settle(request: Request, captured: CapturedRequest, headersRead: Promise<void> | undefined): Promise<void> {
  if (headersRead) await headersRead;
  else {
    const response = await request.response();
    if (response) await readServerTiming(response, captured);
  }
  captured.outcome = 'finished';
}

export interface WatchedPage {
  /** Media requests (under /media/) in the order they left. */
  requests: CapturedRequest[];
  consoleErrors: string[];
  /** A copy of the in-page log. */
  log(): Promise<PageLog>;
}

/**
 * Installs the watchers before the page loads. With `demoHook`, subscribes to the demo's
 * `window.sammyDemo` before the player can issue a request: the demo announces its hook
 * (`sammy-demo-ready`) before it loads the manifest.
 */
export async function watchPage(page: Page, options: { demoHook: boolean }): Promise<WatchedPage> {
  const requests: CapturedRequest[] = [];
  const byRequest = new Map<Request, CapturedRequest>();
  const consoleErrors: string[] = [];
  page.on('request', (request) => {
    if (!pathOf(request.url()).startsWith('/media/')) return;
    const captured = capture(request);
    requests.push(captured);
    byRequest.set(request, captured);
  });
  // The record id as soon as the headers arrive (a response the player aborts mid-body has a record
  // too), read once: the request's end waits for it.
  const headersRead = new Map<CapturedRequest, Promise<void>>();
  page.on('response', (response) => {
    const captured = byRequest.get(response.request());
    if (captured)
      headersRead.set(
        captured,
        readServerTiming(response, captured).catch((error: Error) => void consoleErrors.push(`reading ${captured.url}: ${error.message}`)),
      );
  });
  page.on('requestfinished', (request) => {
    const captured = byRequest.get(request);
    if (captured)
      settle(request, captured, headersRead.get(captured)).catch((error: Error) =>
        consoleErrors.push(`reading ${captured.url}: ${error.message}`),
      );
  });
  page.on('requestfailed', (request) => {
    const captured = byRequest.get(request);
    if (captured) captured.outcome = 'failed';
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
  // Chromium's console says only "404"; name the URL.
  page.on('response', (response) => {
    if (response.status() >= 400) consoleErrors.push(`HTTP ${response.status()} for ${response.url()}`);
  });
  await page.addInitScript((demoHook: boolean) => {
    const log: PageLog = { decisions: [], samples: [], playingAt: undefined, stalls: [], seeks: [], playerErrors: [] };
    window.__e2e = log;
    type Spans = PageLog['stalls'];
    const open = (spans: Spans) => spans.length > 0 && spans.at(-1)!.resumedAt === undefined;
    const begin = (spans: Spans) => {
      if (log.playingAt !== undefined && !open(spans)) spans.push({ at: Date.now(), resumedAt: undefined });
    };
    const end = (spans: Spans) => {
      if (open(spans)) spans.at(-1)!.resumedAt = Date.now();
    };
    const stall = () => begin(log.stalls);
    const resume = () => end(log.stalls);
    // Media events do not bubble; a capturing listener on the document still sees them first
    // (before the player's own listeners on the element, which drive the plugin's phase).
    document.addEventListener(
      'playing',
      (e) => {
        log.playingAt ??= Date.now();
        resume();
        if (open(log.seeks)) log.seeks.at(-1)!.resumedAtSeconds = (e.target as HTMLMediaElement).currentTime;
        end(log.seeks);
      },
      true,
    );
    document.addEventListener('waiting', stall, true);
    document.addEventListener('seeking', () => begin(log.seeks), true);
    document.addEventListener(
      'ratechange',
      (e) => {
        if ((e.target as HTMLMediaElement).playbackRate === 0) stall();
        else if (!(e.target as HTMLMediaElement).paused) resume();
      },
      true,
    );
    if (!demoHook) return;
    let subscribed = false;
    const subscribe = (): void => {
      const hook = window.sammyDemo;
      if (subscribed || !hook) return;
      subscribed = true;
      // Headless Chromium on two shared cores drops frames under load, and Shaka's ABR then bans the
      // rung for 30 s (abr.droppedFrames): a verdict on the test machine, not on the pacing under test.
      if (hook.playerName === 'shaka') (hook.player as { configure(config: object): void }).configure({ abr: { droppedFrames: false } });
      hook.sammy.on('decision', (d) => log.decisions.push(d));
      hook.sammy.on('sample', (s) => log.samples.push(s));
      hook.onPlayerError((message) => log.playerErrors.push(message));
    };
    // The demo page installs its hook once the chosen player's chunk has loaded (after
    // DOMContentLoaded, before the first request) and says so; a page with a hook of its own may
    // set it before DOMContentLoaded.
    window.addEventListener('sammy-demo-ready', subscribe);
    document.addEventListener('DOMContentLoaded', subscribe);
  }, options.demoHook);
  return {
    requests,
    consoleErrors,
    log: () => page.evaluate(() => structuredClone(window.__e2e!)),
  };
}

/**
 * Whether a moment (Date.now()) falls in a stall or a seek the page saw, give or take `slackMs`:
 * the player's events and the element's reach the plugin and this log a few ms apart. The
 * legitimate reasons for an initial-phase (unpaced) decision after playback started.
 */
export function duringStallOrSeek(log: Pick<PageLog, 'stalls' | 'seeks'>, time: number, slackMs = 250): boolean {
  return [...log.stalls, ...log.seeks].some((s) => time >= s.at - slackMs && (s.resumedAt === undefined || time <= s.resumedAt + slackMs));
}

/** The demo page's hook type, for page.evaluate code (the demo documents it in its README). */
interface SammyDemoHookLike {
  /** 'dashjs', 'shaka' or 'hlsjs'. */
  playerName: string;
  /** The player library's own object. */
  player: unknown;
  onPlayerError(listener: (message: string) => void): () => void;
  sammy: {
    on(event: 'decision', listener: (d: SammyDecision) => void): () => void;
    on(event: 'sample', listener: (s: SegmentSample) => void): () => void;
    setEnabled(on: boolean): void;
    readonly enabled: boolean;
    readonly parameters: { readonly beta: number; readonly lookaheadSeconds: number };
  };
  series(): Record<string, number>;
  /** What the summary panel shows (the demo's SessionSummary, the fields tests read). */
  summary(): {
    chunks: number;
    startupDelayMs: number | undefined;
    runs: { paced: boolean }[];
    comparison?: { chunkThroughputReduction: number };
  };
  /** The settings in effect, as the URL gives them. */
  state(): Record<string, unknown>;
  /** 'following' the origin's delivery records, or 'unavailable'. */
  deliveryRecords(): string;
}

declare global {
  interface Window {
    readonly sammyDemo?: SammyDemoHookLike;
  }
}

/**
 * CMCD is well-formed (cml-cmcd's validator) wherever it is sent, and every segment request sends it.
 * Returns a list of problems, empty when all is well.
 */
export function cmcdProblems(requests: readonly CapturedRequest[]): string[] {
  return requests
    .filter((r) => r.isSegment || r.hasCmcd)
    .filter((r) => !r.cmcd.valid)
    .map((r) => `${r.url}: ${r.cmcd.issues.map((i) => `${i.severity}: ${i.message}`).join('; ')}`);
}

/**
 * The origin's delivery records. `ca`: the PEM certificate to trust for an https origin (the
 * development certificate), on a connection of its own (HTTP/1.1), never the browser's.
 */
export async function fetchRecords(origin: string, ca?: string): Promise<DeliveryRecord[]> {
  const url = new URL(RECORDS_PATH, origin);
  if (ca === undefined) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`GET ${RECORDS_PATH}: ${res.status}`);
    return (await res.json()) as DeliveryRecord[];
  }
  return new Promise((resolve, reject) => {
    const req = httpsGet(url, { ca, agent: false, family: 4 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`GET ${url.href}: ${res.statusCode}`));
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as DeliveryRecord[]);
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    req.on('error', reject);
  });
}

/**
 * Finished requests with the record id their response carried, each id once: a response replayed
 * from the browser's cache carries the id of the request that fetched it, whose record it is.
 */
export function recordedRequests(requests: readonly CapturedRequest[]): Array<CapturedRequest & { recordId: number }> {
  const seen = new Set<number>();
  return requests.filter((r): r is CapturedRequest & { recordId: number } => {
    if (r.outcome !== 'finished' || r.recordId === undefined || seen.has(r.recordId)) return false;
    seen.add(r.recordId);
    return true;
  });
}

/**
 * The origin's delivery record of each finished request, found by the id its response carried
 * (Server-Timing `sammy-id`; never by path and time), once all are written (a record is final when
 * the last byte is acknowledged); and every record the origin holds. `ca`: as fetchRecords'.
 * `idOnEvery`: each finished response must carry a record id (the origin publishes records).
 */
export async function recordsOfResponses(
  requests: readonly CapturedRequest[],
  origin: string,
  options: { ca?: string; idOnEvery?: boolean } = {},
): Promise<{ byRequest: Map<CapturedRequest, DeliveryRecord>; all: DeliveryRecord[] }> {
  const finished = requests.filter((r) => r.outcome === 'finished');
  if (options.idOnEvery ?? true) {
    for (const r of finished) expect(r.recordId, `record id (Server-Timing sammy-id) on the response to ${r.url}`).toBeDefined();
  }
  const wanted = recordedRequests(finished);
  let all: DeliveryRecord[] = [];
  let byId = new Map<number, DeliveryRecord>();
  await expect
    .poll(
      async () => {
        all = await fetchRecords(origin, options.ca);
        byId = new Map(all.map((r) => [r.id, r]));
        return wanted.filter((r) => !byId.has(r.recordId)).map((r) => `${r.path} (id ${r.recordId})`);
      },
      { message: 'delivery records of these responses, by id' },
    )
    .toEqual([]);
  const byRequest = new Map<CapturedRequest, DeliveryRecord>();
  for (const r of wanted) {
    const record = byId.get(r.recordId)!;
    // The id names this very response: same path.
    expect(record.path, `record ${r.recordId}'s path`).toBe(r.path);
    byRequest.set(r, record);
  }
  return { byRequest, all };
}

/**
 * The responses still in flight on a record's connection when its request was sent (`sentAt`, the
 * page's clock): given an id before it (ids are allocated on arrival) and finished no earlier than
 * the request left (less 1 ms for the clocks' rounding). A `kept` or `raised` pace answers to theirs.
 */
export function inFlightWhenSent(all: readonly DeliveryRecord[], record: DeliveryRecord, sentAt: number): DeliveryRecord[] {
  return all.filter((o) => o.connectionId === record.connectionId && o.id < record.id && o.finishedAt >= sentAt - 1);
}

/** The shared median; NaN when there is nothing to take it of, so an assertion on it fails. */
export function median(values: readonly number[]): number {
  return medianOf(values) ?? Number.NaN;
}

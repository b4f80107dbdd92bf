/**
 * The game-stream neighbour, driven from the bench: the sender page in a Chromium inside the server
 * namespace, the receiver page in the client namespace's Chromium, one RTCPeerConnection between them
 * through the bottleneck (Chromium's own congestion control: transport-cc feedback, Google congestion
 * control), signalled through the lab server (game/signalling.ts).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { GameClock, GamePageState, GameRun, GameSettings } from '../game/state.js';
import { sleep } from '../processes.js';

export interface GameSession {
  settings: GameSettings;
  startedAt: number;
  flowingAt?: number;
  sender: Page;
  receiver: Page;
  contexts: BrowserContext[];
}

export function gamePageUrl(
  origin: string,
  role: 'send' | 'recv',
  room: string,
  s: GameSettings,
  extra: Record<string, string> = {},
): string {
  const q = new URLSearchParams({
    role,
    room,
    w: String(s.width),
    h: String(s.height),
    fps: String(s.fps),
    maxKbps: String(s.maxKbps),
    ...extra,
  });
  return `${origin}/lab/game.html?${q}`;
}

/** Opens both ends (receiver first: it waits for the offer) and returns once the call is set up. */
export async function startGame(opts: {
  clientBrowser: Browser;
  serverBrowser: Browser;
  origin: string;
  room: string;
  settings: GameSettings;
  headers?: Record<string, string>;
}): Promise<GameSession> {
  const startedAt = Date.now();
  const contexts: BrowserContext[] = [];
  try {
    const rxContext = await opts.clientBrowser.newContext({ serviceWorkers: 'block', extraHTTPHeaders: opts.headers ?? {} });
    contexts.push(rxContext);
    const txContext = await opts.serverBrowser.newContext({ serviceWorkers: 'block', extraHTTPHeaders: opts.headers ?? {} });
    contexts.push(txContext);
    // A new call in this room starts from an empty mailbox.
    const receiver = await rxContext.newPage();
    await receiver.goto(gamePageUrl(opts.origin, 'recv', opts.room, opts.settings), { waitUntil: 'load', timeout: 20_000 });
    await receiver.evaluate(async (room) => {
      await fetch(`./signal/${encodeURIComponent(room)}`, { method: 'DELETE' });
    }, opts.room);
    // The receiver polls from its load on; the DELETE above may have raced an early poll, harmlessly (nothing posted yet).
    const sender = await txContext.newPage();
    await sender.goto(gamePageUrl(opts.origin, 'send', opts.room, opts.settings), { waitUntil: 'load', timeout: 20_000 });
    return { settings: opts.settings, startedAt, sender, receiver, contexts };
  } catch (err) {
    for (const c of contexts) await c.close().catch(() => undefined);
    throw err;
  }
}

async function readGame(page: Page): Promise<GamePageState | undefined> {
  return page.evaluate(() => (window as unknown as { __game?: GamePageState }).__game).catch(() => undefined);
}

/** Frames shown and errors so far, without copying the whole record. */
export async function gameStatus(page: Page): Promise<{ frames: number; errors: string[]; connected: boolean }> {
  return page
    .evaluate(() => {
      const g = (window as unknown as { __game?: GamePageState }).__game;
      return { frames: g ? g.frames.length / 3 : 0, errors: g?.errors ?? [], connected: g?.connectedAt !== undefined };
    })
    .catch(() => ({ frames: 0, errors: ['page not readable'], connected: false }));
}

/** Waits until the receiver has shown a second's worth of stamped frames; throws with the pages' errors otherwise. */
export async function waitFlowing(session: GameSession, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rx = await gameStatus(session.receiver);
    if (rx.frames >= session.settings.fps) {
      session.flowingAt = Date.now();
      return;
    }
    if (Date.now() > until) {
      const tx = await gameStatus(session.sender);
      throw new Error(
        `game stream: ${rx.frames} stamped frames shown after ${timeoutMs / 1000} s (receiver connected: ${rx.connected}, sender connected: ${tx.connected}; ` +
          `errors: ${[...tx.errors.map((e) => `sender ${e}`), ...rx.errors.map((e) => `receiver ${e}`)].join('; ') || 'none'})`,
      );
    }
    await sleep(250);
  }
}

/**
 * The page's clock (performance.timeOrigin + performance.now(), what the stamps and samples use)
 * against Date.now() here: of `rounds` evaluates, the one with the shortest round trip, offset from
 * its midpoint. Chromium's performance.timeOrigin is taken from the wall clock when the page's
 * context starts and then runs on the monotonic clock, so two browsers (or a browser and Node) can
 * differ by the wall clock's adjustments since then; measured per run, not assumed. The bench's side
 * is Node's own performance clock, which is Date.now() to within its rounding (1 ms).
 */
export async function measureClock(page: Page, rounds = 25): Promise<GameClock> {
  let best: GameClock | undefined;
  for (let i = 0; i < rounds; i++) {
    const before = performance.timeOrigin + performance.now();
    const pageNow = await page.evaluate(() => performance.timeOrigin + performance.now());
    const after = performance.timeOrigin + performance.now();
    const rtt = after - before;
    const offset = pageNow - (before + after) / 2;
    if (!best || rtt < best.rttMs) best = { offsetMs: offset, rttMs: rtt };
  }
  return best!;
}

/** Reads both ends' records and clocks (the pages keep running until their contexts close). */
export async function collectGame(session: GameSession): Promise<GameRun> {
  const [senderClock, receiverClock] = [await measureClock(session.sender), await measureClock(session.receiver)];
  const sender = await readGame(session.sender);
  const receiver = await readGame(session.receiver);
  if (!sender || !receiver) throw new Error("game stream: could not read the pages' records");
  return {
    settings: session.settings,
    startedAt: session.startedAt,
    flowingAt: session.flowingAt,
    sender,
    receiver,
    senderClock,
    receiverClock,
  };
}

export async function closeGame(session: GameSession | undefined): Promise<void> {
  for (const c of session?.contexts ?? []) await c.close().catch(() => undefined);
}

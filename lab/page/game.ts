/**
 * The game stream's two ends, one page: `?role=send` draws game-like frames on a canvas and sends them
 * over an RTCPeerConnection; `?role=recv` receives, shows them and reads each frame's capture stamp
 * back (src/game/stamp.ts). Both record into window.__game (src/game/state.ts) for the bench.
 *
 * Parameters: `role`, `room` (the signalling mailbox), `w`, `h`, `fps`, `maxKbps` (the sender's
 * encoding maxBitrate), `live=1` (receiver: a live latency graph, for the demo), `fresh=1` (receiver: clear
 * the room first) and `persist=1` (sender: offer a new call to every new receiver), for the demo.
 *
 * No STUN or TURN server: the only candidates are the host's own addresses, and the bench's Chromium
 * runs with mDNS obfuscation of host candidates off (browser.ts), so they are plain IP addresses.
 */
import { drawDelayAxes } from './delay-axes.js';
import { drawStamp, readStamp, stampLatencyMs, STAMP_HEIGHT_PX, STAMP_WIDTH_PX } from '../src/game/stamp.js';
import type { GamePageState, GameReceiverSample, GameSenderSample, GameSettings } from '../src/game/state.js';

const q = new URLSearchParams(location.search);
const role = q.get('role') === 'send' ? 'send' : 'recv';
const room = q.get('room') ?? 'game';
const settings: GameSettings = {
  width: Number(q.get('w') ?? 640),
  height: Number(q.get('h') ?? 360),
  fps: Number(q.get('fps') ?? 60),
  maxKbps: Number(q.get('maxKbps') ?? 24000),
};
const STATS_EVERY_MS = 500;
/** Sender: keep offering a new call whenever a new receiver clears the room (the live demo). */
const persist = q.get('persist') === '1';
const signalUrl = (kind: string): string => new URL(`./signal/${encodeURIComponent(room)}/${kind}`, location.href).href;
const epochNow = (): number => performance.timeOrigin + performance.now();

const state: GamePageState = {
  role,
  settings,
  frames: [],
  unreadable: 0,
  drawn: 0,
  drawLateMs: [],
  sender: [],
  receiver: [],
  localCandidates: [],
  errors: [],
};
(window as unknown as { __game: GamePageState }).__game = state;
const fail =
  (what: string) =>
  (err: unknown): void => {
    state.errors.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  };

async function gathered(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return;
  await new Promise<void>((resolve) => {
    const check = (): void => {
      if (pc.iceGatheringState === 'complete') {
        pc.removeEventListener('icegatheringstatechange', check);
        resolve();
      }
    };
    pc.addEventListener('icegatheringstatechange', check);
  });
}

async function post(kind: string, desc: RTCSessionDescription | null): Promise<void> {
  if (!desc) throw new Error(`no local ${kind}`);
  state.localCandidates = desc.sdp.split(/\r?\n/).filter((l) => l.startsWith('a=candidate:'));
  const r = await fetch(signalUrl(kind), {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ type: desc.type, sdp: desc.sdp }),
  });
  if (r.status !== 204) throw new Error(`signalling PUT ${kind}: HTTP ${r.status}`);
}

async function poll(kind: string): Promise<RTCSessionDescriptionInit> {
  for (;;) {
    const r = await fetch(signalUrl(kind), { cache: 'no-store' });
    if (r.status === 200) return (await r.json()) as RTCSessionDescriptionInit;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function watchConnection(pc: RTCPeerConnection): void {
  pc.addEventListener('connectionstatechange', () => {
    if (pc.connectionState === 'connected' && state.connectedAt === undefined) state.connectedAt = epochNow();
    if (pc.connectionState === 'failed') state.errors.push('peer connection failed');
  });
}

type Stat = Record<string, unknown> & { type: string; id: string };
const n = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function selectedPair(stats: Map<string, Stat>): Stat | undefined {
  for (const s of stats.values()) {
    if (s.type === 'transport' && typeof s.selectedCandidatePairId === 'string') return stats.get(s.selectedCandidatePairId);
  }
  for (const s of stats.values()) if (s.type === 'candidate-pair' && s.nominated && s.state === 'succeeded') return s;
  return undefined;
}

async function statsMap(pc: RTCPeerConnection): Promise<Map<string, Stat>> {
  const report = await pc.getStats();
  const m = new Map<string, Stat>();
  report.forEach((s: Stat) => m.set(s.id, s));
  return m;
}

// ── sender ──────────────────────────────────────────────────────────────────────────────────────

/**
 * Game-like frames: a detailed scene (a texture of 2×2-pixel random blocks, twice the frame) panned
 * at a speed that varies like a camera's (4–16 px per frame), a fresh band of new detail every frame
 * (a sixth of the frame from a random place in the texture: what no motion vector can predict, like
 * particles or a turning view) and moving solid shapes. A frame of pure noise would cost as much as an
 * intra frame and the encoder would keep its bitrate by dropping most frames (tried: 13 of 60 fps at
 * 5 Mbit/s); this scene keeps 60 fps at a few Mbit/s and turns more bitrate into detail, so the
 * encoder takes what congestion control allows. Drawing is a few blits; the CPU cost is the
 * encoder's, which getStats' qualityLimitationReason reports.
 */
async function send(): Promise<void> {
  const { width: W, height: H, fps } = settings;
  const canvas = document.createElement('canvas');
  canvas.width = W;
  canvas.height = H;
  canvas.className = 'frame';
  document.getElementById('view')!.append(canvas);
  const ctx = canvas.getContext('2d')!;
  const tex = document.createElement('canvas');
  tex.width = 2 * W;
  tex.height = 2 * H;
  const texCtx = tex.getContext('2d')!;
  // Random 2×2 blocks: noise at half resolution, then scaled up without smoothing.
  const small = document.createElement('canvas');
  small.width = W;
  small.height = H;
  const img = small.getContext('2d')!.createImageData(W, H);
  for (let i = 0; i < img.data.length; i += 65536) crypto.getRandomValues(img.data.subarray(i, Math.min(img.data.length, i + 65536)));
  for (let i = 3; i < img.data.length; i += 4) img.data[i] = 255;
  small.getContext('2d')!.putImageData(img, 0, 0);
  texCtx.imageSmoothingEnabled = false;
  texCtx.drawImage(small, 0, 0, tex.width, tex.height);

  // captureStream(0): a frame is captured exactly when requestFrame() is called, after the stamp is drawn.
  const stream = canvas.captureStream(0);
  const track = stream.getVideoTracks()[0] as CanvasCaptureMediaStreamTrack;
  // 'motion': under a bandwidth limit WebRTC keeps the frame rate and scales the resolution down, as
  // game streaming does (tried on Chromium 156: with 'maintain-resolution' or
  // 'maintain-framerate-and-resolution' VP8's frame dropper sent 5–15 of 60 fps at 1.5–6 Mbit/s and
  // getStats still said 'none'). The frame size actually sent is in every stats sample.
  track.contentHint = 'motion';

  let frame = 0;
  let pan = 0;
  const period = 1000 / fps;
  let due = performance.now();
  // Frames are drawn in animation frames: headless Chromium's canvas capture delivered only 10–25 of
  // 60 fps drawn from setTimeout (same machine, same scene), all 60 from requestAnimationFrame.
  const onAnimationFrame = (): void => {
    if (performance.now() >= due - period / 4) tick();
    requestAnimationFrame(onAnimationFrame);
  };
  const tick = (): void => {
    const now = performance.now();
    state.drawLateMs.push(Math.max(0, now - due));
    if (state.drawLateMs.length > 20_000) state.drawLateMs.shift();
    const t = now / 1000;
    // The camera: a pan whose speed varies between 4 and 16 px per frame, wrapping within the texture.
    pan += 10 + 6 * Math.sin(t * 0.7);
    const ox = Math.floor(pan) % W;
    const oy = Math.floor(H / 2 + (H / 2 - 1) * Math.sin(t * 0.9));
    ctx.drawImage(tex, ox, oy, W, H, 0, 0, W, H);
    // New detail each frame, from anywhere in the texture.
    const bandH = Math.floor(H / 6);
    const bandY = Math.floor(Math.random() * (H - bandH));
    ctx.drawImage(tex, Math.floor(Math.random() * W), Math.floor(Math.random() * H), W, bandH, 0, bandY, W, bandH);
    ctx.fillStyle = `hsl(${(frame * 7) % 360} 80% 50%)`;
    ctx.fillRect(((Math.sin(t * 3) + 1) / 2) * (W - 120), ((Math.cos(t * 2) + 1) / 2) * (H - 120), 120, 120);
    drawStamp(ctx, performance.timeOrigin + performance.now(), frame);
    track.requestFrame();
    frame++;
    state.drawn = frame;
    due += period;
    // After a stall, restart the schedule instead of drawing a burst of catch-up frames.
    if (performance.now() - due > 4 * period) due = performance.now() + period;
  };
  requestAnimationFrame(onAnimationFrame);

  /** Whether this call's offer is still in the room (a fresh receiver clears it). */
  const offerStands = async (): Promise<boolean> =>
    (await fetch(signalUrl('offer'), { cache: 'no-store' }).catch(() => undefined))?.status !== 404;
  /** One call: a new connection carrying the same track, offered, answered. */
  const call = async (): Promise<RTCPeerConnection> => {
    const next = new RTCPeerConnection({ iceServers: [] });
    watchConnection(next);
    const sender = next.addTrack(track, stream);
    const params = sender.getParameters();
    if (params.encodings[0]) params.encodings[0].maxBitrate = settings.maxKbps * 1000;
    await sender.setParameters(params).catch(fail('setParameters'));
    await next.setLocalDescription(await next.createOffer());
    await gathered(next);
    await post('offer', next.localDescription);
    for (;;) {
      const r = await fetch(signalUrl('answer'), { cache: 'no-store' });
      if (r.status === 200) {
        await next.setRemoteDescription((await r.json()) as RTCSessionDescriptionInit);
        return next;
      }
      if (persist && !(await offerStands())) {
        next.close();
        throw new Error('superseded');
      }
      await new Promise((resolve) => setTimeout(resolve, persist ? 500 : 100));
    }
  };
  let pc: RTCPeerConnection;
  if (!persist) pc = await call();
  else {
    // The demo: a receiver that (re)loads clears the room (`fresh=1`); the offer gone means a new
    // receiver waits, so the call ends and a new one is offered to it, on the same running track.
    pc = new RTCPeerConnection();
    void (async () => {
      for (;;) {
        try {
          pc = await call();
        } catch {
          continue;
        }
        while (await offerStands()) await new Promise((resolve) => setTimeout(resolve, 1000));
        pc.close();
        state.connectedAt = undefined;
      }
    })();
  }

  setInterval(() => {
    void statsMap(pc)
      .then((m) => {
        const s: GameSenderSample = { t: epochNow() };
        for (const r of m.values()) {
          if (r.type === 'outbound-rtp' && r.kind === 'video') {
            s.bytesSent = n(r.bytesSent);
            s.framesEncoded = n(r.framesEncoded);
            s.framesSent = n(r.framesSent);
            s.targetBitrate = n(r.targetBitrate);
            s.qualityLimitationReason = typeof r.qualityLimitationReason === 'string' ? r.qualityLimitationReason : undefined;
            s.qualityLimitationDurations = r.qualityLimitationDurations as Record<string, number> | undefined;
            s.frameWidth = n(r.frameWidth);
            s.frameHeight = n(r.frameHeight);
            s.framesPerSecond = n(r.framesPerSecond);
            s.totalEncodeTime = n(r.totalEncodeTime);
            s.encoderImplementation = typeof r.encoderImplementation === 'string' ? r.encoderImplementation : undefined;
            const codec = typeof r.codecId === 'string' ? m.get(r.codecId) : undefined;
            s.codec = typeof codec?.mimeType === 'string' ? codec.mimeType : undefined;
          }
          if (r.type === 'remote-inbound-rtp' && r.kind === 'video') {
            const rtt = n(r.roundTripTime);
            s.rttMs = rtt === undefined ? undefined : rtt * 1000;
          }
        }
        const pair = selectedPair(m);
        const prtt = n(pair?.currentRoundTripTime);
        s.pairRttMs = prtt === undefined ? undefined : prtt * 1000;
        s.availableOutgoingBitrate = n(pair?.availableOutgoingBitrate);
        state.sender.push(s);
      })
      .catch(fail('getStats'));
  }, STATS_EVERY_MS);
}

// ── receiver ────────────────────────────────────────────────────────────────────────────────────

interface Live {
  draw(): void;
}

function liveGraph(): Live | undefined {
  if (q.get('live') !== '1') return undefined;
  document.getElementById('live')!.classList.add('on');
  const canvas = document.getElementById('graph') as HTMLCanvasElement;
  const figures = document.getElementById('figures')!;
  const g = canvas.getContext('2d')!;
  const WINDOW_MS = 30_000;
  return {
    draw() {
      const now = epochNow();
      const { width, height } = canvas;
      // The scale follows the window's worst frame (at least 200 ms, at most 2 s), so nothing is clipped.
      let worst = 0;
      for (let i = 0; i + 2 < state.frames.length; i += 3)
        if (state.frames[i]! >= now - WINDOW_MS) worst = Math.max(worst, state.frames[i + 1]!);
      const MAX_MS = Math.min(2000, Math.max(200, Math.ceil(worst / 100) * 100));
      // 50 and 100 ms always (the scale starts at 200 ms), the larger ticks below its top.
      const y = drawDelayAxes(g, { width, height }, MAX_MS, [50, 100, 200, 500, 1000, 1500], { line: '#444', label: '#888' });
      g.strokeStyle = '#4fc3f7';
      g.beginPath();
      const recent: number[] = [];
      let started = false;
      for (let i = 0; i + 2 < state.frames.length; i += 3) {
        const t = state.frames[i]!;
        if (t < now - WINDOW_MS) continue;
        const l = state.frames[i + 1]!;
        if (t > now - 5000) recent.push(l);
        const x = width - ((now - t) / WINDOW_MS) * width;
        if (started) g.lineTo(x, y(l));
        else g.moveTo(x, y(l));
        started = true;
      }
      g.stroke();
      const sorted = recent.sort((a, b) => a - b);
      const pick = (p: number): string =>
        sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(0) : '–';
      const last = state.receiver.at(-1);
      figures.textContent =
        `game frame latency, last 5 s: p50 ${pick(0.5)} ms, p95 ${pick(0.95)} ms · ` +
        `${sorted.length ? ((100 * sorted.filter((l) => l > 100).length) / sorted.length).toFixed(0) : '–'} % over 100 ms · ` +
        `freezes ${last?.freezeCount ?? 0} · ${(sorted.length / 5).toFixed(0)} fps shown`;
    },
  };
}

async function receive(): Promise<void> {
  const video = document.createElement('video');
  video.muted = true;
  video.autoplay = true;
  video.playsInline = true;
  video.className = 'frame';
  document.getElementById('view')!.append(video);
  const probe = document.createElement('canvas');
  probe.width = STAMP_WIDTH_PX * 2;
  probe.height = STAMP_HEIGHT_PX * 2;
  const pctx = probe.getContext('2d', { willReadFrequently: true })!;
  const live = liveGraph();

  const onFrame = (_now: number, meta: VideoFrameCallbackMetadata): void => {
    // The frame's time on the glass: when the compositor expects to show it.
    const shown = performance.timeOrigin + meta.expectedDisplayTime;
    const scale = meta.width / settings.width;
    const w = Math.ceil(STAMP_WIDTH_PX * scale);
    const h = Math.ceil(STAMP_HEIGHT_PX * scale);
    pctx.drawImage(video, 0, 0, w, h, 0, 0, w, h);
    const stamp = readStamp(pctx.getImageData(0, 0, w, h).data, w, scale);
    if (stamp) state.frames.push(shown, stampLatencyMs(shown, stamp.captureMs), stamp.frame);
    else state.unreadable++;
    video.requestVideoFrameCallback(onFrame);
  };
  video.requestVideoFrameCallback(onFrame);

  const pc = new RTCPeerConnection({ iceServers: [] });
  watchConnection(pc);
  pc.addEventListener('track', (e) => {
    video.srcObject = e.streams[0] ?? new MediaStream([e.track]);
    void video.play().catch(fail('play'));
  });
  // The demo's receiver starts a new call: the room's old offer and answer are a previous receiver's.
  if (q.get('fresh') === '1') await fetch(new URL(`./signal/${encodeURIComponent(room)}`, location.href).href, { method: 'DELETE' });
  await pc.setRemoteDescription(await poll('offer'));
  await pc.setLocalDescription(await pc.createAnswer());
  await gathered(pc);
  await post('answer', pc.localDescription);

  setInterval(() => {
    void statsMap(pc)
      .then((m) => {
        const s: GameReceiverSample = { t: epochNow() };
        for (const r of m.values()) {
          if (r.type === 'inbound-rtp' && r.kind === 'video') {
            s.bytesReceived = n(r.bytesReceived);
            s.packetsReceived = n(r.packetsReceived);
            s.packetsLost = n(r.packetsLost);
            s.framesReceived = n(r.framesReceived);
            s.framesDecoded = n(r.framesDecoded);
            s.framesDropped = n(r.framesDropped);
            s.freezeCount = n(r.freezeCount);
            s.totalFreezesDuration = n(r.totalFreezesDuration);
            const j = n(r.jitter);
            s.jitterMs = j === undefined ? undefined : j * 1000;
            s.frameWidth = n(r.frameWidth);
            s.frameHeight = n(r.frameHeight);
            s.jitterBufferDelay = n(r.jitterBufferDelay);
            s.jitterBufferEmittedCount = n(r.jitterBufferEmittedCount);
            s.decoderImplementation = typeof r.decoderImplementation === 'string' ? r.decoderImplementation : undefined;
          }
        }
        const prtt = n(selectedPair(m)?.currentRoundTripTime);
        s.pairRttMs = prtt === undefined ? undefined : prtt * 1000;
        state.receiver.push(s);
      })
      .catch(fail('getStats'));
  }, STATS_EVERY_MS);
  if (live) setInterval(() => live.draw(), 250);
}

(role === 'send' ? send() : receive()).catch(fail(role));

/**
 * The live demo page (`npm run demo:neighbour`): the lab player (index.html) and the game stream's
 * receiver (game.html, live latency graph) side by side, both from the lab server through the
 * bottleneck. The toggle reloads the player with the other arm (unpaced dash.js / Sammy); the game
 * call keeps running. Parameters: `sammy=1` (start with Sammy), `mpd`, `cap`, `buf` (handed to the
 * player as the bench does), `maxKbps`, `fps`, `w`, `h` (handed to the receiver, for its figures);
 * `net` (the demo's feed of the game's per-frame delay through the router, from the delay line's RTP
 * log: drawn under the game), `link` (the link's description for the note).
 */
import type { PageState } from '../src/page-state.js';
import { drawDelayAxes } from './delay-axes.js';

const q = new URLSearchParams(location.search);
let sammy = q.get('sammy') === '1';
const player = document.getElementById('player') as HTMLIFrameElement;
const game = document.getElementById('game') as HTMLIFrameElement;
const toggle = document.getElementById('toggle') as HTMLButtonElement;
const status = document.getElementById('status')!;
const rate = document.getElementById('rate') as HTMLCanvasElement;
const videoFigures = document.getElementById('video-figures')!;
let armStartedAt = performance.timeOrigin + performance.now();

function playerUrl(): string {
  const p = new URLSearchParams({
    player: 'dashjs',
    arm: sammy ? 'sammy' : 'unpaced',
    role: 'demo',
    mpd: q.get('mpd') ?? '/media/lab/manifest.mpd',
    cap: q.get('cap') ?? '13200',
    buf: q.get('buf') ?? '240',
  });
  return `./index.html?${p}`;
}

function show(): void {
  toggle.textContent = sammy ? 'Sammy: on (paced)' : 'Sammy: off (unpaced)';
  toggle.className = sammy ? 'on' : 'off';
  // Surfaced for the screenshot script and anyone reading the page's state.
  document.body.dataset.arm = sammy ? 'sammy' : 'unpaced';
  player.src = playerUrl();
  armStartedAt = performance.timeOrigin + performance.now();
}

toggle.addEventListener('click', () => {
  sammy = !sammy;
  show();
});

const g = new URLSearchParams({ role: 'recv', room: 'demo', live: '1', fresh: '1' });
for (const k of ['maxKbps', 'fps', 'w', 'h']) if (q.has(k)) g.set(k, q.get(k)!);
game.src = `./game.html?${g}`;
show();

/** The film's download rate per second (chunk bytes over their download time), from the player page's record. */
function draw(): void {
  const lab = (player.contentWindow as (Window & { __lab?: PageState }) | null)?.__lab;
  const now = performance.timeOrigin + performance.now();
  const WINDOW_MS = 30_000;
  const ctx = rate.getContext('2d')!;
  const { width, height } = rate;
  ctx.clearRect(0, 0, width, height);
  const MAX = 45;
  const y = (mbps: number): number => height - (Math.min(mbps, MAX) / MAX) * (height - 14) - 2;
  ctx.strokeStyle = '#30363d';
  ctx.fillStyle = '#8b949e';
  ctx.font = '11px sans-serif';
  for (const m of [10, 20, 30, 40]) {
    ctx.beginPath();
    ctx.moveTo(0, y(m));
    ctx.lineTo(width, y(m));
    ctx.stroke();
    ctx.fillText(`${m} Mbit/s`, 4, y(m) - 2);
  }
  if (!lab) return;
  const bins = new Map<number, number>();
  for (const c of lab.chunks) {
    const dur = Math.max(1, c.end - c.start);
    for (let b = Math.floor(c.start / 500); b <= Math.floor(c.end / 500); b++) {
      const overlap = Math.min(c.end, (b + 1) * 500) - Math.max(c.start, b * 500);
      if (overlap > 0) bins.set(b, (bins.get(b) ?? 0) + (c.bytes * overlap) / dur);
    }
  }
  ctx.fillStyle = sammy ? 'rgba(63, 185, 80, 0.6)' : 'rgba(248, 81, 73, 0.6)';
  for (const [b, bytes] of bins) {
    const t = b * 500;
    if (t < now - WINDOW_MS) continue;
    const x = width - ((now - t) / WINDOW_MS) * width;
    const mbps = (bytes * 8) / 500 / 1000;
    ctx.fillRect(x, y(mbps), (500 / WINDOW_MS) * width, height - y(mbps));
  }
  const v = player.contentWindow?.document.querySelector('video');
  const buffered = v && v.buffered.length ? v.buffered.end(v.buffered.length - 1) - v.currentTime : 0;
  const lastVideo = lab.chunks.filter((c) => c.mediaType === 'video').at(-1);
  const recent = [...bins].filter(([b]) => b * 500 > now - 5000).reduce((a, [, bytes]) => a + bytes, 0);
  videoFigures.textContent =
    `film download rate, last 5 s: ${((recent * 8) / 5000 / 1000).toFixed(1)} Mbit/s · buffer ${buffered.toFixed(0)} s · ` +
    `${lab.qualities.at(-1)?.kbps ?? '–'} kbps · pace ${lastVideo?.server.appliedPaceKbps ? `${(lastVideo.server.appliedPaceKbps / 1000).toFixed(1)} Mbit/s` : 'none'} · ` +
    `stalls ${lab.stalls.length}`;
  status.textContent = `${sammy ? 'Sammy' : 'unpaced'} for ${((now - armStartedAt) / 1000).toFixed(0)} s`;
}
setInterval(draw, 500);

/** One frame's delay through the router: [ms since the epoch its first packet arrived, delay ms]. */
type NetFrame = [number, number];
const netUrl = q.get('net');
if (q.has('link')) document.getElementById('link')!.textContent = q.get('link');
if (netUrl) {
  document.getElementById('net-box')!.hidden = false;
  const canvas = document.getElementById('net') as HTMLCanvasElement;
  const figures = document.getElementById('net-figures')!;
  const drawNet = (frames: NetFrame[]): void => {
    const now = performance.timeOrigin + performance.now();
    const WINDOW_MS = 30_000;
    const ctx = canvas.getContext('2d')!;
    const { width, height } = canvas;
    const worst = frames.reduce((a, [, d]) => Math.max(a, d), 0);
    const MAX_MS = Math.min(1000, Math.max(150, Math.ceil(worst / 50) * 50));
    const y = drawDelayAxes(ctx, { width, height }, MAX_MS, [20, 50, 100, 200, 500], { line: '#30363d', label: '#8b949e' });
    ctx.fillStyle = '#f0b429';
    for (const [t, d] of frames) {
      if (t < now - WINDOW_MS) continue;
      ctx.fillRect(width - ((now - t) / WINDOW_MS) * width, y(d) - 1, 2, 2);
    }
    const recent = frames
      .filter(([t]) => t > now - 5000)
      .map(([, d]) => d)
      .sort((a, b) => a - b);
    const pick = (p: number): string =>
      recent.length ? recent[Math.min(recent.length - 1, Math.floor(p * recent.length))]!.toFixed(0) : '–';
    figures.textContent =
      `game frames' delay through the router (network only), last 5 s: p50 ${pick(0.5)} ms, p95 ${pick(0.95)} ms · ` +
      `${recent.length ? ((100 * recent.filter((d) => d > 50).length) / recent.length).toFixed(0) : '–'} % over 50 ms`;
  };
  const poll = async (): Promise<void> => {
    try {
      drawNet((await (await fetch(netUrl, { cache: 'no-store' })).json()) as NetFrame[]);
    } catch {
      figures.textContent = 'game network delay: no answer from the demo';
    }
  };
  setInterval(() => void poll(), 1000);
}

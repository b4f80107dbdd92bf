/**
 * The capture-time stamp the game sender draws into a corner of every frame, and its reading back
 * from the decoded frame on the receiver: a grid of black/white cells, one bit each.
 *
 * Why a pixel pattern and not WebRTC metadata: the latency a player sees runs from the moment the
 * game drew a frame to the moment the receiver shows it, through the encoder, the network, the
 * jitter buffer and the decoder. RTP timestamps and `captureTime` in requestVideoFrameCallback are
 * mapped through RTCP sender reports and clock estimates; a stamp in the pixels survives only the
 * real path, and a frame whose stamp cannot be read is counted as unreadable, not guessed.
 *
 * Layout: 3 rows × 24 cells of CELL_PX (16 px: one VP8/H.264 macroblock, so a cell never shares a
 * block with the noise around it and stays flat after lossy coding). 72 bits: 40 bits of capture
 * time (ms since the epoch, mod 2^40: 34 years), 16 bits of frame number (mod 2^16), 16 bits of
 * checksum over both. Shared by the page (drawing, reading) and the unit tests.
 */
export const CELL_PX = 16;
export const STAMP_COLS = 24;
export const STAMP_ROWS = 3;
export const STAMP_WIDTH_PX = CELL_PX * STAMP_COLS;
export const STAMP_HEIGHT_PX = CELL_PX * STAMP_ROWS;
const TIME_BITS = 40;
const FRAME_BITS = 16;
const CHECK_BITS = 16;
const TIME_MOD = 2 ** TIME_BITS;

export interface Stamp {
  /** Capture time, ms since the epoch (integer), modulo 2^40. */
  captureMs: number;
  /** Frame number modulo 2^16. */
  frame: number;
}

/** 16-bit checksum of the time and frame number (FNV-1a over their bytes, folded). */
export function stampChecksum(captureMs: number, frame: number): number {
  let h = 0x811c9dc5;
  const bytes: number[] = [];
  let t = captureMs;
  for (let i = 0; i < 5; i++) {
    bytes.push(t % 256);
    t = Math.floor(t / 256);
  }
  bytes.push(frame & 0xff, (frame >> 8) & 0xff);
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return ((h >>> 16) ^ (h & 0xffff)) & 0xffff;
}

/** The 72 bits of a stamp, most significant first within each field. */
export function stampBits(captureMsEpoch: number, frame: number): boolean[] {
  const captureMs = Math.floor(captureMsEpoch) % TIME_MOD;
  const f = frame % 2 ** FRAME_BITS;
  const bits: boolean[] = [];
  const push = (value: number, n: number): void => {
    for (let i = n - 1; i >= 0; i--) bits.push(Math.floor(value / 2 ** i) % 2 === 1);
  };
  push(captureMs, TIME_BITS);
  push(f, FRAME_BITS);
  push(stampChecksum(captureMs, f), CHECK_BITS);
  return bits;
}

/** The stamp from 72 bits, or undefined when the checksum does not match (a misread cell). */
export function stampFromBits(bits: readonly boolean[]): Stamp | undefined {
  if (bits.length !== STAMP_COLS * STAMP_ROWS) return undefined;
  let i = 0;
  const read = (n: number): number => {
    let v = 0;
    for (let k = 0; k < n; k++) v = v * 2 + (bits[i++] ? 1 : 0);
    return v;
  };
  const captureMs = read(TIME_BITS);
  const frame = read(FRAME_BITS);
  const check = read(CHECK_BITS);
  return check === stampChecksum(captureMs, frame) ? { captureMs, frame } : undefined;
}

/** Draws the stamp at (0, 0): white cells for ones, black for zeros. */
export function drawStamp(
  ctx: { fillStyle: unknown; fillRect(x: number, y: number, w: number, h: number): void },
  captureMsEpoch: number,
  frame: number,
): void {
  const bits = stampBits(captureMsEpoch, frame);
  for (let k = 0; k < bits.length; k++) {
    ctx.fillStyle = bits[k] ? '#fff' : '#000';
    ctx.fillRect((k % STAMP_COLS) * CELL_PX, Math.floor(k / STAMP_COLS) * CELL_PX, CELL_PX, CELL_PX);
  }
}

/**
 * Reads the stamp from RGBA pixels of the frame's top-left corner (`width` px per row), drawn at
 * `scale` × the sender's size (the encoder may scale the frame down): each cell's centre half,
 * mean luma above mid-grey is a one.
 */
export function readStamp(rgba: ArrayLike<number>, width: number, scale = 1): Stamp | undefined {
  const cell = CELL_PX * scale;
  const bits: boolean[] = [];
  for (let k = 0; k < STAMP_COLS * STAMP_ROWS; k++) {
    const x0 = Math.round((k % STAMP_COLS) * cell + cell / 4);
    const y0 = Math.round(Math.floor(k / STAMP_COLS) * cell + cell / 4);
    const n = Math.max(1, Math.round(cell / 2));
    let sum = 0;
    for (let y = y0; y < y0 + n; y++) {
      for (let x = x0; x < x0 + n; x++) {
        const p = (y * width + x) * 4;
        sum += 0.299 * (rgba[p] ?? 0) + 0.587 * (rgba[p + 1] ?? 0) + 0.114 * (rgba[p + 2] ?? 0);
      }
    }
    bits.push(sum / (n * n) > 128);
  }
  return stampFromBits(bits);
}

/** Latency of a frame shown at `shownMsEpoch` whose stamp says `captureMs` (mod 2^40). */
export function stampLatencyMs(shownMsEpoch: number, captureMs: number): number {
  const shown = shownMsEpoch % TIME_MOD;
  let d = shown - captureMs;
  // Across the 2^40 wrap (never within a run, but cheap to get right).
  if (d < -TIME_MOD / 2) d += TIME_MOD;
  return d;
}

/**
 * Progress while the bench runs: one redrawn status line on a terminal, plain lines otherwise.
 */
export interface RunStatus {
  elapsedSeconds: number;
  durationSeconds: number;
  bufferSeconds?: number;
  bitrateKbps?: number;
  chunks?: number;
  paceKbps?: number;
  queueDelayMs?: number;
  started: boolean;
  stalls?: number;
  neighbour?: string;
}

export class Progress {
  #done = 0;
  #label = '';
  #lastPlain = 0;
  readonly #tty: boolean;
  readonly #t0 = Date.now();

  constructor(
    private readonly total: number,
    plain: boolean,
  ) {
    this.#tty = !plain && Boolean(process.stderr.isTTY);
  }

  log(message: string): void {
    if (this.#tty) process.stderr.write('\r\x1b[2K');
    process.stderr.write(`${message}\n`);
  }

  beginRun(label: string): void {
    this.#label = label;
    this.log(`[${this.#done + 1}/${this.total}] ${label}`);
  }

  endRun(summary: string): void {
    this.#done++;
    this.log(`[${this.#done}/${this.total}] ${this.#label} done: ${summary}`);
  }

  update(s: RunStatus): void {
    const bar = (() => {
      const width = 20;
      const filled = Math.min(width, Math.round((s.elapsedSeconds / s.durationSeconds) * width));
      return `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
    })();
    const parts = [
      `[${this.#done + 1}/${this.total}]`,
      bar,
      `${s.elapsedSeconds.toFixed(0)}/${s.durationSeconds}s`,
      s.started ? 'playing' : 'starting',
      s.bufferSeconds !== undefined ? `buf ${s.bufferSeconds.toFixed(1)}s` : '',
      s.bitrateKbps !== undefined ? `${Math.round(s.bitrateKbps)} kbps` : '',
      s.chunks !== undefined ? `${s.chunks} chunks` : '',
      s.paceKbps ? `pace ${(s.paceKbps / 1000).toFixed(1)} Mbps` : '',
      s.queueDelayMs !== undefined ? `queue ${s.queueDelayMs.toFixed(1)} ms` : '',
      s.stalls ? `${s.stalls} stalls` : '',
      s.neighbour ?? '',
      `total ${Math.round((Date.now() - this.#t0) / 1000)}s`,
    ].filter(Boolean);
    const line = parts.join('  ');
    if (this.#tty) process.stderr.write(`\r\x1b[2K${line}`);
    else if (Date.now() - this.#lastPlain >= 10_000) {
      this.#lastPlain = Date.now();
      process.stderr.write(`${line}\n`);
    }
  }
}

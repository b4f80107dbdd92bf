/** A one-line progress bar on a TTY; a line per 10% elsewhere (CI logs). */
export interface ProgressBar {
  update(fraction: number, detail?: string): void;
  done(message: string): void;
}

export function createProgressBar(label: string, stream: NodeJS.WriteStream = process.stderr, width = 30): ProgressBar {
  let lastTenth = -1;
  const render = (fraction: number, detail: string) => {
    const f = Math.min(1, Math.max(0, fraction));
    const filled = Math.round(f * width);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(f * 100)).padStart(3)}% ${detail}`;
  };
  return {
    update(fraction, detail = '') {
      if (stream.isTTY) {
        stream.write(`\r${render(fraction, detail)}\x1b[K`);
        return;
      }
      const tenth = Math.floor(Math.min(1, fraction) * 10);
      if (tenth > lastTenth) {
        lastTenth = tenth;
        stream.write(`${render(fraction, detail)}\n`);
      }
    },
    done(message) {
      stream.write(stream.isTTY ? `\r${message}\x1b[K\n` : `${message}\n`);
    },
  };
}

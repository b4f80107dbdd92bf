/**
 * The delay charts' common frame (the game page's glass-to-glass chart, the demo's per-frame network
 * delay): clears the canvas, draws a labelled line at each tick below the scale's top, and returns
 * the scale, delay ms → y px (clipped at `maxMs`, 14 px left at the top for the labels).
 */
export function drawDelayAxes(
  ctx: CanvasRenderingContext2D,
  size: { width: number; height: number },
  maxMs: number,
  ticksMs: readonly number[],
  colours: { line: string; label: string },
): (ms: number) => number {
  const { width, height } = size;
  const y = (ms: number): number => height - (Math.min(ms, maxMs) / maxMs) * (height - 14) - 2;
  ctx.clearRect(0, 0, width, height);
  ctx.strokeStyle = colours.line;
  ctx.fillStyle = colours.label;
  ctx.font = '11px sans-serif';
  for (const ms of ticksMs.filter((m) => m < maxMs)) {
    ctx.beginPath();
    ctx.moveTo(0, y(ms));
    ctx.lineTo(width, y(ms));
    ctx.stroke();
    ctx.fillText(`${ms} ms`, 4, y(ms) - 2);
  }
  return y;
}

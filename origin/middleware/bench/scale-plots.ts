/** The scale benchmark's figures against N, one plot each, a line per mode (Vega-Lite, rendered as the lab renders its plots). */
import { render } from '../../../lab/src/plots.js';
import type { ScaleRow } from './scale.js';

const FIGURES: Array<[keyof ScaleRow, string]> = [
  ['arrivalP50', 'arrival/rtp p50'],
  ['arrivalP5', 'arrival/rtp p5'],
  ['arrivalP95', 'arrival/rtp p95'],
  ['cpuSecondsPerGbit', 'server CPU s per delivered Gbit'],
  ['rssPerConnectionKB', 'RSS per connection, KB'],
  ['fdsPerConnection', 'fds per connection'],
  ['kernelTcpMB', "host's kernel TCP memory at peak, MB"],
  ['loopDelayP99Ms', 'event-loop delay p99, ms'],
];

export async function plotScale(rows: readonly ScaleRow[], dir: string): Promise<void> {
  for (const [field, title] of FIGURES) {
    await render(
      {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title,
        width: 360,
        height: 220,
        data: { values: rows.map((r) => ({ mode: r.mode, viewers: r.viewers, value: r[field] })) },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'viewers', type: 'quantitative', scale: { type: 'log' }, title: 'concurrent viewers (N)' },
          // Unpaced arrivals are many times their rtp: a log scale keeps the paced ones near 1 readable.
          y: { field: 'value', type: 'quantitative', title, scale: { type: String(field).startsWith('arrival') ? 'log' : 'linear' } },
          color: { field: 'mode', type: 'nominal' },
        },
      },
      dir,
      `scale-${field}`,
    );
  }
}

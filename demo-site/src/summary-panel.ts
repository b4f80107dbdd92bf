import { byId } from './dom.js';
import { formatDuration, formatRate, formatSignedPercent } from './format.js';
import type { SessionSummary } from './session.js';

/** Renders the session summary, the paced/unpaced comparison and the per-run table. */
export class SummaryPanel {
  private readonly list = byId('summary', HTMLElement);
  private readonly comparison = byId('comparison', HTMLParagraphElement);
  private readonly runs = byId('runs', HTMLTableElement);

  render(s: SessionSummary): void {
    const rows: [string, string][] = [
      ['Startup delay', formatDuration(s.startupDelayMs)],
      ['Mean bitrate', formatRate(s.meanBitrateKbps)],
      ['Rebuffers', `${s.rebufferCount} (${s.rebufferCount === 0 ? '0 s' : formatDuration(s.rebufferMs)})`],
      ['Median chunk throughput', formatRate(s.medianChunkThroughputKbps)],
      ['Video segments', String(s.chunks)],
    ];
    this.list.replaceChildren(...rows.flatMap(([term, value]) => [el('dt', term), el('dd', value)]));

    const c = s.comparison;
    this.comparison.classList.toggle('ready', c !== undefined);
    this.comparison.replaceChildren(
      ...(c
        ? [
            el('strong', 'Paced vs unpaced: '),
            `chunk throughput ${formatSignedPercent(-c.chunkThroughputReduction)} `,
            el('small', `(${formatRate(c.pacedMedianChunkThroughputKbps)} vs ${formatRate(c.unpacedMedianChunkThroughputKbps)}, medians)`),
            `; bitrate ${formatSignedPercent(c.bitrateChange)} `,
            el('small', `(${formatRate(c.pacedMeanBitrateKbps)} vs ${formatRate(c.unpacedMeanBitrateKbps)}, means)`),
          ]
        : ['The comparison appears once a paced and an unpaced run both have segments (switch Sammy off or on to start one).']),
    );

    this.runs.tBodies[0]!.replaceChildren(
      ...s.runs.map((r) => {
        const tr = document.createElement('tr');
        tr.className = r.paced ? 'paced' : 'unpaced';
        tr.append(
          el('td', String(r.index)),
          el('td', r.paced ? 'on' : 'off'),
          el('td', formatDuration(r.durationMs)),
          el('td', String(r.chunks)),
          el('td', formatRate(r.medianChunkThroughputKbps)),
          el('td', formatRate(r.meanBitrateKbps)),
          el('td', r.rebufferCount === 0 ? '0' : `${r.rebufferCount} (${formatDuration(r.rebufferMs)})`),
        );
        return tr;
      }),
    );
  }
}

function el(tag: string, text: string): HTMLElement {
  const node = document.createElement(tag);
  node.textContent = text;
  return node;
}

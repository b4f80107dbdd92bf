/**
 * Issue 39's frontier plot per family (frontier.ts makes the spec), rendered as the bench's other
 * plots are (plots.ts: Vega in Node to SVG, resvg to PNG).
 */
import type { Arm } from './config.js';
import { FRONTIER_ARMS, frontierCells, frontierPlotName, frontierPoints, frontierRunDots, frontierSpec } from './frontier.js';
import type { RunMetrics } from './measurements.js';
import { render } from './plots.js';

/** Draws one frontier plot per family that has any arm with both figures; returns the plots' names. */
export async function plotFrontiers(
  metrics: readonly RunMetrics[],
  arms: readonly Arm[],
  topVideoKbps: number,
  dir: string,
): Promise<string[]> {
  const shown = FRONTIER_ARMS.filter((a) => arms.includes(a));
  const cells = frontierCells(metrics, shown);
  const names: string[] = [];
  for (const family of [...new Set(cells.map((c) => c.family))]) {
    const points = frontierPoints(cells, family);
    if (points.length === 0) continue;
    const dots = frontierRunDots(
      metrics.filter((m) => shown.includes(m.arm)),
      family,
    );
    const name = frontierPlotName(family);
    await render(frontierSpec(family, cells.find((c) => c.family === family)?.familyMbps, topVideoKbps, points, dots, shown), dir, name);
    names.push(name);
  }
  return names;
}

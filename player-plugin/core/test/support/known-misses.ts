import { expect, it } from 'vitest';

/**
 * A target test that knows its misses: a key listed in `misses` runs as `it.fails` with the reason in
 * its name, so a miss that is fixed fails too (and the list must be updated), as does a new one.
 */
export function targetChecks(misses: Readonly<Record<string, string>>) {
  return (key: string, name: string, body: () => void) =>
    misses[key] ? it.fails(`${name} — KNOWN MISS: ${misses[key]}`, body) : it(name, body);
}

/** A session's viewer figures, as both simulations report them. */
interface ViewerFigures {
  rebufferRatio: number;
  meanBitrateKbps: number;
  switches: number;
}

/**
 * The viewer's three targets of a paced arm against unpaced dash.js (issues 17 and 33): no more
 * rebuffering, ≥ 98% of the mean bitrate, no more switches (issue 39: `switchesShare` × unpaced's,
 * 1.1). `key` and `label` name the case.
 */
export function viewerChecks(
  check: ReturnType<typeof targetChecks>,
  key: string,
  label: string,
  paced: ViewerFigures,
  base: ViewerFigures,
  switchesShare = 1,
): void {
  check(`${key}/rebuffer`, `${label} rebuffers no more than unpaced`, () =>
    expect(paced.rebufferRatio).toBeLessThanOrEqual(base.rebufferRatio + 1e-9),
  );
  check(`${key}/bitrate`, `${label} keeps ≥ 98% of the unpaced mean bitrate`, () =>
    expect(paced.meanBitrateKbps).toBeGreaterThanOrEqual(0.98 * base.meanBitrateKbps),
  );
  const more = switchesShare > 1 ? ` +${Math.round((switchesShare - 1) * 100)}%` : '';
  check(`${key}/switches`, `${label} switches no more than unpaced${more}`, () =>
    expect(paced.switches).toBeLessThanOrEqual(switchesShare * base.switches),
  );
}

/** `sammyPacing()`'s options are checked once, when it is made: a wrong one throws and names itself. */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/logger.js';
import { sammyPacing } from '../src/middleware.js';
import type { SammyPacingOptions } from '../src/options.js';

const make = (options: Record<string, unknown>) => () => sammyPacing({ logger: silentLogger, ...options } as SammyPacingOptions).close();

describe('sammyPacing options', () => {
  it('refuses an unknown key, naming it and the known ones', () => {
    expect(make({ minPaceKpbs: 2000 })).toThrow(
      /unknown option 'minPaceKpbs' \(did you mean 'minPaceKbps'\?\); known: mechanism, minPaceKbps/,
    );
  });

  it("refuses an unknown mechanism, listing the four (pacing off is 'none', the word records report)", () => {
    expect(make({ mechanism: 'off' })).toThrow(/mechanism must be one of auto, kernel, userspace, none, got "off"/);
  });

  it('refuses pace bounds that cannot hold and a timeout that is no duration', () => {
    expect(make({ minPaceKbps: 0 })).toThrow(RangeError);
    expect(make({ minPaceKbps: 5000, maxPaceKbps: 4000 })).toThrow(RangeError);
    expect(make({ progressTimeoutMs: Number.NaN })).toThrow(/progressTimeoutMs/);
    expect(make({ congestionControl: 'fastest' })).toThrow(/unknown congestion control "fastest"/);
  });

  it("refuses metrics it cannot serve: not true/false/{ registry }, or a registry that is not prom-client's", () => {
    expect(make({ metrics: 'yes' as never })).toThrow(/metrics must be true, false or \{ registry \}/);
    expect(
      make({ metrics: { registry: { registerMetric() {}, getSingleMetric() {}, metrics: async () => '', contentType: 'text/plain' } } }),
    ).toThrow(/metrics.registry must be a Registry of the prom-client/);
  });

  it("takes 'none' and reports it as the mechanism", () => {
    const pacing = sammyPacing({ logger: silentLogger, mechanism: 'none' });
    try {
      expect(pacing.mechanism).toBe('none');
    } finally {
      pacing.close();
    }
  });
});

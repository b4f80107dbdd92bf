/**
 * Every public entry that takes options checks them the same way when it is made: not an object, an
 * unknown key (named with the nearest known one and the known list) and a value of the wrong type are
 * TypeErrors; a value of the right type that cannot work is a RangeError.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { releaseHttp2Sockets, sammyMetricsEndpoint, sammyPacing, sammyRecords, silentLogger, DeliveryRecordLog } from '../src/index.js';

/** The one shape of an unknown-option error (protocol's, the players' too): entry, key, nearest, then the known options. */
const unknownOption = (entry: string, key: string, nearest: string) =>
  new RegExp(`^${entry}: unknown option '${key}' \\(did you mean '${nearest}'\\?\\); known: [a-zA-Z, ]+$`);

function thrown(make: () => unknown): Error {
  try {
    make();
  } catch (err) {
    return err as Error;
  }
  throw new Error('did not throw');
}

const pacing = (options: unknown) => () => sammyPacing({ logger: silentLogger, ...(options as object) }).close();

describe('options of every public entry', () => {
  it('an unknown option is a TypeError of one shape on every entry, naming the entry, the key, the known keys and the nearest', () => {
    const registry = new Registry();
    const withMetrics = sammyPacing({ logger: silentLogger, metrics: { registry } });
    try {
      const cases: Array<[string, () => unknown, string, string]> = [
        ['sammyPacing', pacing({ minPaceKpbs: 2000 }), 'minPaceKpbs', 'minPaceKbps'],
        ['sammyPacing: metrics', pacing({ metrics: { registy: registry } }), 'registy', 'registry'],
        ['sammyRecords', () => sammyRecords(new DeliveryRecordLog(), { maxSubscriber: 3 } as never), 'maxSubscriber', 'maxSubscribers'],
        [
          'sammyMetricsEndpoint',
          () => sammyMetricsEndpoint(withMetrics.metrics!, { allowedHost: ['a.example'] } as never),
          'allowedHost',
          'allowedHosts',
        ],
      ];
      for (const [entry, make, key, nearest] of cases) {
        const err = thrown(make);
        expect(err, entry).toBeInstanceOf(TypeError);
        expect(err.message, entry).toMatch(unknownOption(entry, key, nearest));
      }
      expect(thrown(pacing({ progresTimeoutMs: 1 })).message).toContain('; known: mechanism, minPaceKbps, maxPaceKbps, congestionControl,');
    } finally {
      withMetrics.close();
    }
  });

  it('options that are not an object say so', () => {
    const err = thrown(() => sammyPacing('cubic' as never));
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('sammyPacing: options must be an object, got string "cubic"');
    expect(thrown(() => sammyRecords(new DeliveryRecordLog(), 16 as never)).message).toBe(
      'sammyRecords: options must be an object, got number 16',
    );
  });

  it('a value of the wrong type is a TypeError naming the type; a right type that cannot work a RangeError', () => {
    const fast = thrown(pacing({ maxPaceKbps: 'fast' }));
    expect(fast).toBeInstanceOf(TypeError);
    expect(fast.message).toBe('sammyPacing: maxPaceKbps must be a number, got string "fast"');
    expect(thrown(pacing({ maxPaceKbps: 0 }))).toBeInstanceOf(RangeError);
    expect(thrown(pacing({ allowClientCongestionControl: 'yes' }))).toBeInstanceOf(TypeError);
    expect(thrown(pacing({ logger: { info() {} } })).message).toMatch(
      /^sammyPacing: logger must be an object with info, warn and debug functions/,
    );
    expect(thrown(pacing({ records: '1000' })).message).toBe(
      'sammyPacing: records must be a DeliveryRecordLog or a capacity (a number), got string "1000"',
    );
    expect(thrown(pacing({ userspaceBurstMs: -1 }))).toBeInstanceOf(RangeError);
    expect(thrown(() => sammyRecords(new DeliveryRecordLog(), { maxSubscribers: '16' } as never))).toBeInstanceOf(TypeError);
    expect(thrown(() => sammyRecords(new DeliveryRecordLog(), { allowedHosts: 'origin.example' } as never)).message).toBe(
      'sammyRecords: allowedHosts must be an array of host names or \'any\', got string "origin.example"',
    );
  });

  it('an unknown mechanism or congestion control lists the known ones; a non-string says it wants one', () => {
    const cc = thrown(pacing({ congestionControl: 'fastest' }));
    expect(cc).toBeInstanceOf(RangeError);
    expect(cc.message).toBe('sammyPacing: congestionControl: unknown congestion control "fastest" (known: cubic, reno, bbr)');
    expect(thrown(pacing({ congestionControl: 1 }))).toBeInstanceOf(TypeError);
    expect(thrown(pacing({ mechanism: 'off' }))).toBeInstanceOf(RangeError);
    expect(thrown(pacing({ mechanism: true })).message).toBe(
      'sammyPacing: mechanism must be a string, one of auto, kernel, userspace, none, got boolean true',
    );
  });

  it('null is an unset option, as the defaults read it', () => {
    expect(pacing({ minPaceKbps: null, congestionControl: null, metrics: null })).not.toThrow();
    expect(() => sammyRecords(new DeliveryRecordLog(), { maxSubscribers: null } as never).close()).not.toThrow();
  });

  it('what an entry takes besides options is checked too', () => {
    expect(thrown(() => sammyRecords(undefined as never)).message).toBe(
      'sammyRecords: log must be a DeliveryRecordLog (sammyPacing().records), got undefined',
    );
    // pacing.metrics is undefined unless sammyPacing({ metrics: true }): the usual mistake.
    expect(thrown(() => sammyMetricsEndpoint(undefined as never)).message).toBe(
      'sammyMetricsEndpoint: metrics must be sammyPacing({ metrics: true }).metrics, got undefined',
    );
    expect(thrown(() => releaseHttp2Sockets({} as never))).toBeInstanceOf(TypeError);
  });
});

/**
 * A value of the wrong type is a TypeError naming the key, the type it takes and what it got, on
 * every entry that takes options (`attach` through the kit, `update`, `createSession`'s parameters);
 * a value of the right type that cannot work stays the validation's SammyConfigError. The messages
 * are in the one shape of every options error (sammy-pacing-protocol's option errors).
 */
import { unknownOptionMessage } from 'sammy-pacing-protocol';
import { describe, expect, it } from 'vitest';
import { createAdapterKit, createSession, memoryStore, SammyConfigError, type PlayerDescription } from '../src/index.js';

const player: PlayerDescription<object> = {
  package: 'sammy-pacing-test',
  bufferTargetSeconds: () => 30,
  settings: () => ({}),
  cmcdMode: () => 'query',
};
const attach = (options: object) => () => createAdapterKit({ initialHistory: memoryStore(), ...options }, player);
/** An error of this class with exactly this message. */
const refusal = (name: 'TypeError' | 'SammyConfigError', message: string) => expect.objectContaining({ name, message });
const typeError = (message: string) => refusal('TypeError', message);

describe('option types', () => {
  it('attach: a value of the wrong type is a TypeError naming the key, the type it takes and the value it got', () => {
    expect(attach({ c0: 'fast' })).toThrow(typeError('Sammy: c0 must be a number, got fast'));
    expect(attach({ maxPaceKbps: 'fast' })).toThrow(typeError("Sammy: unknown option 'maxPaceKbps' (did you mean 'paceBase'?)"));
    expect(attach({ throughputWindow: '5' })).toThrow(typeError('Sammy: throughputWindow must be a number, got 5'));
    expect(attach({ paceBase: 1 })).toThrow(typeError('Sammy: paceBase must be a string, got 1'));
    expect(attach({ c1: null })).toThrow(typeError('Sammy: c1 must be a number, got null'));
    expect(attach({ enabled: 'yes' })).toThrow(typeError('Sammy: enabled must be a boolean, got yes'));
    expect(attach({ enabled: null })).toThrow(typeError('Sammy: enabled must be a boolean, got null'));
    expect(attach({ bufferTargetSeconds: '30' })).toThrow(typeError('Sammy: bufferTargetSeconds must be a number, got 30'));
    expect(attach({ cmcdMode: 5 })).toThrow(typeError("Sammy: cmcdMode must be 'query' or 'header', got 5"));
    expect(attach({ mode: 'bola' })).toThrow(
      typeError("Sammy: mode must be 'sammy' or 'pace-only' (paceOnly from 'sammy-pacing-test/pace-only'), got bola"),
    );
  });

  it('update and createSession: the same TypeError, and the set in force is kept', () => {
    const controller = createAdapterKit({ initialHistory: memoryStore() }, player).controller({ detach() {} });
    expect(() => controller.update({ linkShare: '0.5' } as never)).toThrow(typeError('Sammy: linkShare must be a number, got 0.5'));
    expect(() => controller.update({ linkShare: 0.5, paceBase: true } as never)).toThrow(
      typeError('Sammy: paceBase must be a string, got true'),
    );
    expect(controller.parameters).toMatchObject({ linkShare: 0, paceBase: 'next-rung' });
    expect(() => createSession({ parameters: { c0: true } as never })).toThrow(typeError('Sammy: c0 must be a number, got true'));
  });

  it('createSession: an unknown config key names the nearest config key; a config value of the wrong type is a TypeError', () => {
    expect(() => createSession({ playerABR: {} } as never)).toThrow(
      typeError("Sammy: unknown option 'playerABR' (did you mean 'playerAbr'?)"),
    );
    expect(() => createSession({ bufferTarget: 30 } as never)).toThrow(
      typeError("Sammy: unknown option 'bufferTarget' (did you mean 'bufferTargetSeconds'?)"),
    );
    expect(() => createSession({ enabled: 'yes' } as never)).toThrow(typeError('Sammy: enabled must be a boolean, got yes'));
    expect(() => createSession({ bufferTargetSeconds: '30' } as never)).toThrow(
      typeError('Sammy: bufferTargetSeconds must be a number, got 30'),
    );
    expect(() => createSession({ now: 5 } as never)).toThrow(typeError('Sammy: now must be a function, got 5'));
    expect(createSession({ initialHistory: memoryStore(), enabled: false, bufferTargetSeconds: undefined }).enabled).toBe(false);
  });

  it('a value of the right type that cannot work is still the validation’s SammyConfigError; undefined keeps the default', () => {
    expect(attach({ c0: 0 })).toThrow(refusal('SammyConfigError', 'Sammy: c0 must be a number > 0 and ≤ 100, got 0'));
    expect(attach({ c0: NaN })).toThrow(SammyConfigError);
    expect(attach({ probeInterval: 1.5 })).toThrow(SammyConfigError);
    expect(attach({ paceBase: 'rung' })).toThrow(refusal('SammyConfigError', "Sammy: paceBase must be 'top' or 'next-rung'"));
    const kit = createAdapterKit(
      { initialHistory: memoryStore(), c0: undefined, enabled: undefined, bufferTargetSeconds: undefined },
      player,
    );
    expect(kit.session.enabled).toBe(true);
    expect(kit.session.parameters.c0).toBe(4);
  });

  it('an unknown option reads in the one shape, protocol’s, which the core writes inline to spare the bundle a call', () => {
    for (const [key, nearest] of [
      ['enable', 'enabled'],
      ['c2', 'c0'],
      ['maxBufferSeconds', 'bufferTargetSeconds'],
    ]) {
      expect(attach({ [key!]: 1 })).toThrow(typeError(unknownOptionMessage('Sammy', key!, nearest!)));
    }
  });
});

import { describe, expect, it } from 'vitest';
import { describeValue, unknownOptionMessage, wrongTypeError } from '../src/index.js';

describe('option errors: one shape for players and servers', () => {
  it('an unknown option names the entry, the key and the nearest known one, in that order', () => {
    expect(unknownOptionMessage('Sammy', 'enable', 'enabled')).toBe("Sammy: unknown option 'enable' (did you mean 'enabled'?)");
    expect(unknownOptionMessage('sammyPacing: metrics', 'registy', 'registry')).toBe(
      "sammyPacing: metrics: unknown option 'registy' (did you mean 'registry'?)",
    );
  });

  it('a wrong type is a TypeError naming the entry and key, what it takes and what it got', () => {
    const error = wrongTypeError('sammyPacing: maxPaceKbps', 'a number', describeValue('fast'));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('sammyPacing: maxPaceKbps must be a number, got string "fast"');
    expect(wrongTypeError('Sammy: enabled', 'a boolean', 'yes').message).toBe('Sammy: enabled must be a boolean, got yes');
  });

  it('describes a value by its type, with the value where it is short', () => {
    expect(describeValue('cubic')).toBe('string "cubic"');
    expect(describeValue('x'.repeat(50))).toBe(`string "${'x'.repeat(40)}…"`);
    expect(describeValue(16)).toBe('number 16');
    expect(describeValue(NaN)).toBe('number NaN');
    expect(describeValue(true)).toBe('boolean true');
    expect(describeValue(10n)).toBe('bigint 10');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue([1])).toBe('an array');
    expect(describeValue({ a: 1 })).toBe('an object');
    expect(describeValue(() => 1)).toBe('function');
    expect(describeValue(Symbol('s'))).toBe('symbol');
  });
});

import { describe, expect, it } from 'vitest';
import { toWallClock } from '../src/wall-clock.js';

describe('toWallClock', () => {
  const origin = 1_763_000_000_000;
  it('puts a performance.now() time on the wall clock', () => {
    expect(toWallClock(1234.5, origin)).toBe(origin + 1234.5);
  });
  it('leaves an epoch time alone', () => {
    expect(toWallClock(origin + 99, origin)).toBe(origin + 99);
  });
});

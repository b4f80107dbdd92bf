import { describe, expect, it } from 'vitest';
import { bufferAhead } from '../src/players/buffer.js';
import { isPlayerName, isSammyConfigError, PLAYER_LABELS, PLAYER_NAMES } from '../src/players/player.js';

describe('player names', () => {
  it('knows the three players, each with a label for the selector', () => {
    expect(PLAYER_NAMES).toEqual(['dashjs', 'shaka', 'hlsjs']);
    expect(PLAYER_NAMES.map((name) => PLAYER_LABELS[name])).toEqual(['dash.js', 'Shaka Player', 'hls.js']);
    expect(PLAYER_NAMES.every(isPlayerName)).toBe(true);
    expect([undefined, null, 'hls.js', 'DASHJS', 'toString'].some(isPlayerName)).toBe(false);
  });

  it("recognises the session core's refusal by its name, whatever adapter threw it", () => {
    class SammyConfigError extends Error {
      override name = 'SammyConfigError';
    }
    expect(isSammyConfigError(new SammyConfigError('c1 below its minimum'))).toBe(true);
    expect(isSammyConfigError(new RangeError('c1'))).toBe(false);
    expect(isSammyConfigError({ name: 'SammyConfigError' })).toBe(false);
  });
});

describe('buffer ahead of the playhead', () => {
  it('is the rest of the range holding the playhead', () => {
    expect(bufferAhead([{ start: 0, end: 12 }], 4)).toBe(8);
    expect(
      bufferAhead(
        [
          { start: 0, end: 4 },
          { start: 8, end: 20 },
        ],
        10,
      ),
    ).toBe(10);
  });

  it('counts a range starting just after the playhead (a gap the player jumps) from its start', () => {
    expect(bufferAhead([{ start: 0.05, end: 6 }], 0)).toBeCloseTo(5.95);
  });

  it('is 0 with nothing buffered at the playhead', () => {
    expect(bufferAhead([], 3)).toBe(0);
    expect(bufferAhead([{ start: 0, end: 4 }], 4)).toBe(0);
    expect(bufferAhead([{ start: 10, end: 20 }], 3)).toBe(0);
  });
});

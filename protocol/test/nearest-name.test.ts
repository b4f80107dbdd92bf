import { describe, expect, it } from 'vitest';
import { nearestName } from '../src/index.js';

describe('nearestName', () => {
  it('names the known name fewest edits away', () => {
    expect(nearestName('enabeld', ['mode', 'enabled', 'cmcdMode'])).toBe('enabled');
    expect(nearestName('c2', ['beta', 'c0', 'c1'])).toBe('c0');
    expect(nearestName('maxPace', ['maxPaceKbps', 'minPaceKbps'])).toBe('maxPaceKbps');
  });
  it('counts a changed case as an edit, so a case slip beats a different name', () => {
    expect(nearestName('linkshare', ['capacityShare', 'linkShare'])).toBe('linkShare');
    expect(nearestName('C0', ['c1', 'C1', 'c0'])).toBe('C1');
  });
  it('takes the first of equally near names, and the only name of a list of one', () => {
    expect(nearestName('ab', ['xb', 'ay'])).toBe('xb');
    expect(nearestName('anything', ['only'])).toBe('only');
  });
});

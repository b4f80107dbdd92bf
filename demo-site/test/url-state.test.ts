import { describe, expect, it } from 'vitest';
import {
  baselineSeconds,
  DEFAULT_BASELINE_SECONDS,
  DEFAULT_STATE,
  MAX_BASELINE_SECONDS,
  normaliseOrigin,
  parseDemoState,
  serialiseDemoState,
} from '../src/url-state.js';

describe('URL state', () => {
  it('gives the defaults for an empty query: dash.js, local origin, Sammy on, plugin c0/c1, no cc, CMCD query', () => {
    expect(parseDemoState('')).toEqual(DEFAULT_STATE);
  });

  it('reads every parameter', () => {
    const state = parseDemoState('?player=hlsjs&origin=https://demo.global.ssl.fastly.net/&sammy=off&c0=3.5&c1=1.6&cc=reno&cmcd=header');
    expect(state).toEqual({
      player: 'hlsjs',
      origin: 'https://demo.global.ssl.fastly.net',
      sammy: false,
      c0: 3.5,
      c1: 1.6,
      cc: 'reno',
      cmcd: 'header',
    });
  });

  it('falls back to the default for malformed values instead of failing', () => {
    const state = parseDemoState('player=videojs&origin=javascript:alert(1)&sammy=maybe&c0=abc&c1=&cc=vegas&cmcd=json');
    expect(state).toEqual(DEFAULT_STATE);
  });

  it('leaves the range of c0/c1 to the plugin: a negative number survives parsing', () => {
    expect(parseDemoState('c0=-1').c0).toBe(-1);
  });

  it('reads each player by its URL name; case and spelling must match', () => {
    expect(['dashjs', 'shaka', 'hlsjs'].map((p) => parseDemoState(`player=${p}`).player)).toEqual(['dashjs', 'shaka', 'hlsjs']);
    for (const wrong of ['Shaka', 'hls.js', 'dash.js', '', 'shaka '])
      expect(parseDemoState(new URLSearchParams({ player: wrong })).player).toBe('dashjs');
  });

  it('round-trips through serialise and parse', () => {
    const state = {
      player: 'shaka' as const,
      origin: 'http://localhost:18080',
      sammy: false,
      c0: 2.8,
      c1: 1.6,
      cc: 'cubic' as const,
      cmcd: 'header' as const,
    };
    expect(parseDemoState(serialiseDemoState(state))).toEqual(state);
  });

  it('writes a short link: defaults omitted except the Sammy switch', () => {
    expect(serialiseDemoState(DEFAULT_STATE)).toBe('sammy=on');
    expect(serialiseDemoState({ ...DEFAULT_STATE, sammy: false, c0: 4 })).toBe('sammy=off&c0=4');
  });

  it('names the player first, and only when it is not the default dash.js', () => {
    expect(serialiseDemoState({ ...DEFAULT_STATE, player: 'dashjs' })).not.toContain('player');
    expect(serialiseDemoState({ ...DEFAULT_STATE, player: 'hlsjs', cmcd: 'header' })).toBe('player=hlsjs&sammy=on&cmcd=header');
  });

  it('normalises origins and rejects non-http ones', () => {
    expect(normaliseOrigin(' http://localhost:8080/ ')).toBe('http://localhost:8080');
    expect(normaliseOrigin('')).toBe('');
    expect(normaliseOrigin('ftp://example.com')).toBeUndefined();
    expect(normaliseOrigin('not a url')).toBeUndefined();
  });
});

describe('the unpaced baseline', () => {
  it('a first visit (no sammy setting) gets the default baseline', () => {
    expect(baselineSeconds('')).toBe(DEFAULT_BASELINE_SECONDS);
    expect(baselineSeconds('?player=shaka&cmcd=header')).toBe(DEFAULT_BASELINE_SECONDS);
  });

  it('a link that names a mode gets none: it asked for that mode from the start', () => {
    expect(baselineSeconds('?sammy=on')).toBe(0);
    expect(baselineSeconds('?sammy=off')).toBe(0);
  });

  it('baseline=N asks for N seconds, clamped to [0, MAX]; a malformed one falls back', () => {
    expect(baselineSeconds('?sammy=on&baseline=8')).toBe(8);
    expect(baselineSeconds('?baseline=0')).toBe(0);
    expect(baselineSeconds('?baseline=-5')).toBe(0);
    expect(baselineSeconds('?baseline=1e6')).toBe(MAX_BASELINE_SECONDS);
    expect(baselineSeconds('?baseline=soon')).toBe(DEFAULT_BASELINE_SECONDS);
  });
});

import { describe, expect, it } from 'vitest';
import { isCmcdParam, pathOf, splitUrl, withoutCmcd } from '../src/cmcd-url.js';

describe('URL helpers', () => {
  it('recognise the CMCD parameter and nothing else', () => {
    expect(isCmcdParam('CMCD=rtp%3D100')).toBe(true);
    expect(isCmcdParam('CMCD')).toBe(true);
    expect(isCmcdParam('CMCDX=1')).toBe(false);
    expect(isCmcdParam('cmcd=1')).toBe(false);
  });

  it('strip CMCD and keep every other byte', () => {
    expect(withoutCmcd('/m/seg.m4s?a=%2F&CMCD=rtp%3D100&b#f')).toBe('/m/seg.m4s?a=%2F&b#f');
    expect(withoutCmcd('/m/seg.m4s?CMCD=rtp%3D100')).toBe('/m/seg.m4s');
    expect(withoutCmcd('/m/seg.m4s?CMCD=1&CMCD=2')).toBe('/m/seg.m4s');
    const untouched = 'https://h/m/seg.m4s?x=CMCD%3D1';
    expect(withoutCmcd(untouched)).toBe(untouched);
  });

  it('split a URL at its first ? and its first #, whatever the bytes between', () => {
    expect(splitUrl('/a?x=1&CMCD=y#h?i&j')).toEqual({ base: '/a', params: ['x=1', 'CMCD=y'], hash: '#h?i&j' });
    expect(splitUrl('/a#h?x=1')).toEqual({ base: '/a', params: [], hash: '#h?x=1' });
    expect(splitUrl('/a?')).toEqual({ base: '/a', params: [], hash: '' });
    expect(splitUrl('/a?&')).toEqual({ base: '/a', params: ['', ''], hash: '' });
    expect(splitUrl('/a\nb?x\n=1#\n')).toEqual({ base: '/a\nb', params: ['x\n=1'], hash: '#\n' });
    expect(splitUrl('')).toEqual({ base: '', params: [], hash: '' });
  });

  it('give the path of absolute URLs and of paths', () => {
    expect(pathOf('https://cdn.example:8443/media/seg-1.m4s?CMCD=x#t')).toBe('/media/seg-1.m4s');
    expect(pathOf('http://h')).toBe('/');
    expect(pathOf('http://h?x=1')).toBe('/');
    expect(pathOf('/media/seg-1.m4s?CMCD=x')).toBe('/media/seg-1.m4s');
    expect(pathOf('/media/a#b?c')).toBe('/media/a');
    expect(pathOf('/records')).toBe('/records');
  });

  it('agree with the URL parser on the path', () => {
    for (const url of ['http://a.b/c/d.m4s?q=1', 'https://a.b:1/', 'http://u@a.b/x%20y?CMCD=1#z'])
      expect(pathOf(url)).toBe(new URL(url).pathname);
  });
});

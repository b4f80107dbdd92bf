import { describe, expect, it } from 'vitest';
import { RequestedSegments } from '../src/requested-segments.js';

describe('RequestedSegments', () => {
  it('recognises a response by path whatever its query, and tells video from audio', () => {
    const segs = new RequestedSegments();
    segs.add('http://localhost:8080/media/default/video/1500/seg-4.m4s', 'video');
    segs.add('http://localhost:8080/media/default/audio/seg-4.m4s', 'audio');
    expect(segs.kindOf('http://localhost:8080/media/default/video/1500/seg-4.m4s?CMCD=rtp%3D9000')).toBe('video');
    expect(segs.kindOf('/media/default/audio/seg-4.m4s')).toBe('audio');
    expect(segs.kindOf('/media/default/manifest.mpd')).toBeUndefined();
  });

  it('matches whole paths only', () => {
    const segs = new RequestedSegments();
    segs.add('http://localhost:8080/media/default/seg-4-00013.m4s', 'video');
    expect(segs.kindOf('/default/seg-4-00013.m4s')).toBeUndefined();
    expect(segs.kindOf('/media/default/seg-4-00013.m4s')).toBe('video');
  });
});

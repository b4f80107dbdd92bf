/** Media segment paths: the one parser of the names MEDIA_SEGMENT_TEMPLATE gives the segments; the 4K-like film's spec. */
import { describe, expect, it } from 'vitest';
import { FILM_4K_LADDER, ladderFfmpegArgs, MEDIA_SEGMENT_TEMPLATE, mediaSegmentOf } from '../src/ladder.js';

describe('mediaSegmentOf', () => {
  it('reads the representation and number of a path the template names', () => {
    const name = MEDIA_SEGMENT_TEMPLATE.replace('$RepresentationID$', '4').replace('$Number%05d$', '00007');
    expect(mediaSegmentOf(`/media/lab/${name}`)).toEqual({ representationId: '4', number: 7 });
  });

  it('is undefined for manifests, playlists, init segments and other names', () => {
    for (const path of [
      '/media/lab/manifest.mpd',
      '/media/lab/media_5.m3u8',
      '/media/lab/init-4.m4s',
      '/media/lab/seg-4-00007.m4s.bak',
      'seg-4-00007.m4s',
    ]) {
      expect(mediaSegmentOf(path), path).toBeUndefined();
    }
  });
});

describe('the 4K-like film ladder', () => {
  it('climbs to ~15.6 Mbit/s in 4 s segments, each rung CBR with filler so segment sizes follow the bitrates', () => {
    const kbps = FILM_4K_LADDER.rungs.map((r) => r.kbps);
    expect(kbps.at(-1)).toBe(15_600);
    expect([...kbps].sort((a, b) => a - b)).toEqual(kbps);
    expect(FILM_4K_LADDER.segmentS).toBe(4);
    const args = ladderFfmpegArgs(FILM_4K_LADDER, '/tmp/x/manifest.mpd');
    FILM_4K_LADDER.rungs.forEach((r, i) => {
      for (const flag of ['b', 'minrate', 'maxrate']) expect(args[args.indexOf(`-${flag}:v:${i}`) + 1]).toBe(`${r.kbps}k`);
    });
    expect(args.join(' ')).toContain('nal-hrd=cbr');
  });
});

/** Media segment paths: the one parser of the names MEDIA_SEGMENT_TEMPLATE gives the segments. */
import { describe, expect, it } from 'vitest';
import { MEDIA_SEGMENT_TEMPLATE, mediaSegmentOf } from '../src/ladder.js';

describe('mediaSegmentOf', () => {
  it('reads the representation and number of a path the template names', () => {
    const name = MEDIA_SEGMENT_TEMPLATE.replace('$RepresentationID$', '4').replace('$Number%05d$', '00007');
    expect(mediaSegmentOf(`/media/lab/${name}`)).toEqual({ representationId: '4', number: 7 });
  });

  it('is undefined for manifests, playlists, init segments and other names', () => {
    for (const path of ['/media/lab/manifest.mpd', '/media/lab/media_5.m3u8', '/media/lab/init-4.m4s', '/media/lab/seg-4-00007.m4s.bak', 'seg-4-00007.m4s']) {
      expect(mediaSegmentOf(path), path).toBeUndefined();
    }
  });
});

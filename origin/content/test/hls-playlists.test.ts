/** The HLS playlist reader, and the ffmpeg arguments that make the DASH muxer write the playlists. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LADDER, ladderFfmpegArgs, parseAttributes, parseMediaPlaylist, parseMultivariantPlaylist } from '../src/index.js';

const MASTER = `#EXTM3U
#EXT-X-VERSION:7
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_A1",NAME="audio_5",DEFAULT=YES,URI="media_5.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=431205,RESOLUTION=426x240,CODECS="avc1.42c015,mp4a.40.2",AUDIO="group_A1"
media_0.m3u8

#EXT-X-STREAM-INF:BANDWIDTH=6129865,RESOLUTION=1280x720,CODECS="avc1.42c01f,mp4a.40.2",AUDIO="group_A1"
media_4.m3u8
`;

const MEDIA = `#EXTM3U
#EXT-X-VERSION:6
#EXT-X-TARGETDURATION:4
#EXT-X-MEDIA-SEQUENCE:1
#EXT-X-MAP:URI="init-5.m4s"
#EXTINF:4.010667,
seg-5-00001.m4s
#EXTINF:3.989333,
seg-5-00002.m4s
#EXT-X-ENDLIST
`;

describe('HLS playlists', () => {
  it('reads attribute lists, quoted values with commas included', () => {
    expect(parseAttributes('BANDWIDTH=431205,CODECS="avc1.42c015,mp4a.40.2",AUDIO="group_A1"')).toEqual({
      BANDWIDTH: '431205',
      CODECS: 'avc1.42c015,mp4a.40.2',
      AUDIO: 'group_A1',
    });
  });

  it('reads variants and alternate renditions of a multivariant playlist', () => {
    const { variants, renditions } = parseMultivariantPlaylist(MASTER);
    expect(variants.map((v) => [v.uri, v.bandwidth, v.attributes.AUDIO])).toEqual([
      ['media_0.m3u8', 431205, 'group_A1'],
      ['media_4.m3u8', 6129865, 'group_A1'],
    ]);
    expect(renditions).toEqual([{ attributes: expect.objectContaining({ TYPE: 'AUDIO', 'GROUP-ID': 'group_A1' }), uri: 'media_5.m3u8' }]);
  });

  it('reads a media playlist: target duration, init segment, segments, end', () => {
    expect(parseMediaPlaylist(MEDIA)).toEqual({
      targetDurationS: 4,
      mapUri: 'init-5.m4s',
      segments: [
        { uri: 'seg-5-00001.m4s', durationS: 4.010667 },
        { uri: 'seg-5-00002.m4s', durationS: 3.989333 },
      ],
      endList: true,
    });
  });

  it('refuses what is not a playlist, and a segment without EXTINF', () => {
    expect(() => parseMediaPlaylist('<MPD/>')).toThrow(/EXTM3U/);
    expect(() => parseMediaPlaylist('#EXTM3U\nseg.m4s\n')).toThrow(/without EXTINF/);
    expect(() => parseMultivariantPlaylist('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n')).toThrow(/without a URI/);
  });

  it('the DASH muxer is asked for HLS playlists too, for the same segments', () => {
    const args = ladderFfmpegArgs(DEFAULT_LADDER, '/tmp/x/manifest.mpd');
    expect(args[args.indexOf('-hls_playlist') + 1]).toBe('1');
    expect(args[args.indexOf('-f', args.indexOf('-c:a')) + 1]).toBe('dash');
    expect(args.at(-1)).toBe('/tmp/x/manifest.mpd');
  });
});

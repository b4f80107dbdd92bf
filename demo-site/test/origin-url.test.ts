import { RECORD_EVENTS_PATH } from 'sammy-pacing-protocol';
import { describe, expect, it } from 'vitest';
import { manifestUrl, playlistUrl, recordEventsUrl, sourceUrl } from '../src/origin-url.js';

const PAGE = 'http://localhost:8080';

describe('origin URLs', () => {
  it('plays the default ladder of the page origin when none is set', () => {
    expect(manifestUrl('', PAGE)).toBe('http://localhost:8080/media/default/manifest.mpd');
    expect(playlistUrl('', PAGE)).toBe('http://localhost:8080/media/default/master.m3u8');
  });

  it('plays the default ladder of a configured origin, or a manifest named directly', () => {
    expect(manifestUrl('https://x.global.ssl.fastly.net', PAGE)).toBe('https://x.global.ssl.fastly.net/media/default/manifest.mpd');
    expect(manifestUrl('https://x.example/live/a.mpd', PAGE)).toBe('https://x.example/live/a.mpd');
    expect(playlistUrl('https://x.global.ssl.fastly.net', PAGE)).toBe('https://x.global.ssl.fastly.net/media/default/master.m3u8');
    expect(playlistUrl('https://x.example/live/b.m3u8', PAGE)).toBe('https://x.example/live/b.m3u8');
  });

  it("takes a player's own format beside a file of the other: master.m3u8 next to manifest.mpd, and back", () => {
    expect(playlistUrl('https://x.example/media/other/manifest.mpd', PAGE)).toBe('https://x.example/media/other/master.m3u8');
    expect(manifestUrl('https://x.example/media/other/master.m3u8', PAGE)).toBe('https://x.example/media/other/manifest.mpd');
  });

  it('gives every player an absolute URL of its format', () => {
    expect(sourceUrl('dash', '', 'https://localhost:8443')).toBe('https://localhost:8443/media/default/manifest.mpd');
    expect(sourceUrl('hls', '', 'https://localhost:8443')).toBe('https://localhost:8443/media/default/master.m3u8');
  });

  it('listens to delivery records only from the origin serving the page', () => {
    expect(recordEventsUrl('', PAGE)).toBe(`${PAGE}${RECORD_EVENTS_PATH}`);
    expect(recordEventsUrl('http://localhost:8080', PAGE)).toBe(`${PAGE}${RECORD_EVENTS_PATH}`);
    expect(recordEventsUrl('https://x.global.ssl.fastly.net', PAGE)).toBeUndefined();
  });
});

import { RECORD_EVENTS_PATH } from 'sammy-pacing-protocol';
import { describe, expect, it } from 'vitest';
import { manifestUrl, recordEventsUrl } from '../src/origin-url.js';

const PAGE = 'http://localhost:8080';

describe('origin URLs', () => {
  it('plays the default ladder of the page origin when none is set', () => {
    expect(manifestUrl('', PAGE)).toBe('http://localhost:8080/media/default/manifest.mpd');
  });

  it('plays the default ladder of a configured origin, or a manifest named directly', () => {
    expect(manifestUrl('https://x.global.ssl.fastly.net', PAGE)).toBe('https://x.global.ssl.fastly.net/media/default/manifest.mpd');
    expect(manifestUrl('https://x.example/live/a.mpd', PAGE)).toBe('https://x.example/live/a.mpd');
  });

  it('listens to delivery records only from the origin serving the page', () => {
    expect(recordEventsUrl('', PAGE)).toBe(`${PAGE}${RECORD_EVENTS_PATH}`);
    expect(recordEventsUrl('http://localhost:8080', PAGE)).toBe(`${PAGE}${RECORD_EVENTS_PATH}`);
    expect(recordEventsUrl('https://x.global.ssl.fastly.net', PAGE)).toBeUndefined();
  });
});

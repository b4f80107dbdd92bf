/**
 * The real hls.js 1.7 player, outside a browser: no MediaSource, so it never loads media by
 * itself (`autoStartLoad: false`). It loads and parses a real multivariant playlist through a
 * fake network loader (no sockets), which records every request as it finally leaves: after
 * hls.js's own CMCD controller and Sammy's fragment loader. Fragment loads are driven through
 * `hls.config.fLoader` — the class hls.js itself instantiates for each fragment, CMCD's wrapper
 * around Sammy's around the fake — and the buffer levels are stubbed on the real player.
 */
import { fromCmcdHeaders, fromCmcdQuery } from '@svta/cml-cmcd';
import Hls, {
  Events,
  type FragmentLoaderContext,
  type HlsConfig,
  type Loader,
  type LoaderCallbacks,
  type LoaderConfiguration,
  type LoaderContext,
  type LoaderStats,
} from 'hls.js';
import { attach, memoryStore, sammyConfig, type SammyDecision, type SammyOptions, type SegmentSample } from '../../src/index.js';

/** Five variants, BANDWIDTH = video + 128 kbps audio (RFC 8216), audio as an alternate rendition. */
export const VIDEO_KBPS = [300, 750, 1500, 3000, 6000];
export const MASTER = [
  '#EXTM3U',
  '#EXT-X-VERSION:7',
  '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="audio",DEFAULT=YES,AUTOSELECT=YES,URI="media_5.m3u8"',
  ...VIDEO_KBPS.flatMap((kbps, i) => [
    `#EXT-X-STREAM-INF:BANDWIDTH=${(kbps + 128) * 1000},RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aud"`,
    `media_${i}.m3u8`,
  ]),
  '',
].join('\n');

export function mediaPlaylist(id: number): string {
  const segments = Array.from({ length: 15 }, (_, n) => [`#EXTINF:4.000000,`, `seg-${id}-${String(n + 1).padStart(5, '0')}.m4s`]).flat();
  return [
    '#EXTM3U',
    '#EXT-X-VERSION:6',
    '#EXT-X-TARGETDURATION:4',
    '#EXT-X-MEDIA-SEQUENCE:1',
    `#EXT-X-MAP:URI="init-${id}.m4s"`,
    ...segments,
    '#EXT-X-ENDLIST',
    '',
  ].join('\n');
}

export const BASE = 'http://origin.test/media/default/';

// hls.js checks codecs with MediaSource.isTypeSupported before it accepts a variant; happy-dom has no MSE.
const scope = globalThis as { MediaSource?: unknown };
scope.MediaSource ??= class {
  static isTypeSupported(type: string): boolean {
    return /avc1|mp4a/.test(type);
  }
};

/** A request as it left: URL and headers after every wrapper. */
export interface SentRequest {
  url: string;
  headers: Record<string, string>;
}

/** The fake network: answers playlists with text and segments with `segmentBytes` bytes, after `durationMs`. */
export class FakeLoader implements Loader<LoaderContext> {
  static sent: SentRequest[] = [];
  static segmentBytes = 1_500_000;
  static durationMs = 400;
  context: LoaderContext | null = null;
  stats: LoaderStats = {
    aborted: false,
    loaded: 0,
    retry: 0,
    total: 0,
    chunkCount: 0,
    bwEstimate: 0,
    loading: { start: 0, first: 0, end: 0 },
    parsing: { start: 0, end: 0 },
    buffering: { start: 0, first: 0, end: 0 },
  };

  constructor(_config: HlsConfig) {}

  load(context: LoaderContext, _config: LoaderConfiguration, callbacks: LoaderCallbacks<LoaderContext>): void {
    this.context = context;
    FakeLoader.sent.push({ url: context.url, headers: { ...(context.headers ?? {}) } });
    const path = new URL(context.url).pathname.split('/').pop()!;
    const text = path === 'master.m3u8' ? MASTER : path.endsWith('.m3u8') ? mediaPlaylist(Number(/\d+/.exec(path)![0])) : undefined;
    const data = text ?? new ArrayBuffer(path.startsWith('init') ? 800 : FakeLoader.segmentBytes);
    const size = typeof data === 'string' ? data.length : data.byteLength;
    const start = performance.now();
    setTimeout(() => {
      Object.assign(this.stats, { loaded: size, total: size, loading: { start, first: start + 20, end: start + FakeLoader.durationMs } });
      callbacks.onSuccess({ url: context.url, data }, this.stats, context, null);
    }, 0);
  }

  abort(): void {
    this.stats.aborted = true;
  }

  destroy(): void {}
}

export interface Setup {
  hls: Hls;
  media: HTMLVideoElement;
  sammy: ReturnType<typeof attach>;
  decisions: SammyDecision[];
  samples: SegmentSample[];
  buffers: { main: number; audio: number | null };
  /** Loads a fragment through hls.js's own fragment loader chain; resolves with the request as sent. */
  loadFragment(kind: 'video' | 'audio' | 'init', level?: number): Promise<SentRequest>;
}

/** A player made with sammyConfig, its master playlist parsed, Sammy attached, media attached. */
export async function setup(options: SammyOptions = {}, hlsConfig: Partial<HlsConfig> = {}): Promise<Setup> {
  FakeLoader.sent = [];
  const hls = new Hls(sammyConfig({ autoStartLoad: false, loader: FakeLoader as never, ...hlsConfig }));
  const buffers: Setup['buffers'] = { main: 12, audio: 15 };
  Object.defineProperty(hls, 'mainForwardBufferInfo', {
    get: () => ({ len: buffers.main, start: 0, end: buffers.main, nextStart: undefined, buffered: [] }),
  });
  Object.defineProperty(hls, 'audioForwardBufferInfo', {
    get: () => (buffers.audio === null ? null : { len: buffers.audio, start: 0, end: buffers.audio, nextStart: undefined, buffered: [] }),
  });
  const sammy = attach(hls, { initialHistory: memoryStore(), ...options });
  const decisions: SammyDecision[] = [];
  const samples: SegmentSample[] = [];
  sammy.on('decision', (d) => decisions.push(d));
  sammy.on('sample', (s) => samples.push(s));
  const parsed = new Promise<void>((resolve) => hls.once(Events.MANIFEST_PARSED, () => resolve()));
  hls.loadSource(`${BASE}master.m3u8`);
  await parsed;
  // The level hls.js would be loading: its audio group's tracks become hls.audioTracks (CMCD ot=v, not av).
  // The level hls.js would be loading: its audio group's tracks become hls.audioTracks, so hls.js's
  // CMCD tells video (ot=v) from muxed (av), as it does while playing.
  hls.loadLevel = 3;
  // No MediaSource here: hand the element over as hls.js does once attached.
  const media = document.createElement('video');
  hls.trigger(Events.MEDIA_ATTACHED, { media, mediaSource: null as never });

  let sn = 0;
  const loadFragment = (kind: 'video' | 'audio' | 'init', level = kind === 'audio' ? 0 : 3) =>
    new Promise<SentRequest>((resolve, reject) => {
      const id = kind === 'audio' ? 5 : level;
      const init = kind === 'init';
      const url = `${BASE}${init ? `init-${id}.m4s` : `seg-${id}-${String(++sn).padStart(5, '0')}.m4s`}`;
      const frag = {
        sn: init ? 'initSegment' : sn,
        type: kind === 'audio' ? 'audio' : 'main',
        level,
        duration: 4,
        url,
        hasStreams: false,
        elementaryStreams: {},
        byteRange: [],
      };
      const context = {
        type: 'fragment',
        frag,
        part: null,
        url,
        responseType: 'arraybuffer',
        rangeStart: 0,
        rangeEnd: 0,
      } as unknown as FragmentLoaderContext;
      const Loader = hls.config.fLoader!;
      const loader = new Loader(hls.config);
      const before = FakeLoader.sent.length;
      loader.load(context, { timeout: 10_000, maxRetry: 0, retryDelay: 0, maxRetryDelay: 0 } as never, {
        onSuccess: () => resolve(FakeLoader.sent[before]!),
        onError: (e) => reject(new Error(String(e.text))),
        onTimeout: () => reject(new Error('timeout')),
      });
    });
  return { hls, media, sammy, decisions, samples, buffers, loadFragment };
}

/** The CMCD payload a request carries, from the query or the CMCD-* headers (cml-cmcd's decoder). */
export function cmcdOf(req: SentRequest): Record<string, unknown> {
  const query = new URL(req.url).searchParams;
  if (query.has('CMCD')) return fromCmcdQuery(query) as Record<string, unknown>;
  return fromCmcdHeaders(Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v]))) as Record<string, unknown>;
}

export const play = (media: HTMLMediaElement) => media.dispatchEvent(new Event('playing'));

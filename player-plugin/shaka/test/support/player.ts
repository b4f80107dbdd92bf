/**
 * The real Shaka Player 5 module outside a browser (happy-dom): a real Player with its real
 * NetworkingEngine and its real CMCD (CmcdManager, every key, its own rtp included), attached to
 * a media element without MediaSource (happy-dom has none, so `player.load()` cannot run). What a
 * load would do to the AbrManager — make it with `abrFactory`, configure, init, setMediaElement,
 * setVariants, chooseVariant, enable (lib/player.js, loadInner_) — the test does by hand, on the
 * factory Sammy installed. Requests go through the real networking engine to a scheme of the
 * test's own, which records what would have left and answers with the bytes and time asked for.
 */
import './upsert.js';
import shaka from 'shaka-player';
import { vi } from 'vitest';
import { fromCmcdHeaders, fromCmcdQuery } from '@svta/cml-cmcd';
import { attach, memoryStore, type SammyDecision, type SegmentSample } from '../../src/index.js';
import type { AbrManager, Stream, Variant } from '../../src/shaka.js';

export { shaka };
/** The test's own plugin answers http: (at Shaka's APPLICATION priority, over its fetch plugin). */
export const SCHEME = 'http';
export const TOP_KBPS = 6000;
export const AUDIO_KBPS = 128;
export const VIDEO_LADDER = [
  { kbps: 300, width: 426, height: 240 },
  { kbps: 750, width: 640, height: 360 },
  { kbps: 1500, width: 854, height: 480 },
  { kbps: 3000, width: 1280, height: 720 },
  { kbps: 6000, width: 1920, height: 1080 },
];

/** What the scheme plugin saw leave, and answers with next. */
export interface Wire {
  sent: Array<{ uri: string; headers: Record<string, string> }>;
  /** The next response: body bytes and Shaka's timeMs. */
  next: { bytes: number; timeMs: number };
  /** When set, the response to each request as it leaves (a simulated link and server). */
  respond?: (sent: { uri: string; headers: Record<string, string> }) => { bytes: number; timeMs: number };
}

const wire: Wire = { sent: [], next: { bytes: 100_000, timeMs: 100 } };
let registered = false;

function registerScheme(): void {
  if (registered) return;
  registered = true;
  shaka.net.NetworkingEngine.registerScheme(
    SCHEME,
    ((uri: string, request: shaka.extern.Request) => {
      const sent = { uri, headers: { ...request.headers } };
      wire.sent.push(sent);
      const { bytes, timeMs } = wire.respond?.(sent) ?? wire.next;
      const response = { uri, originalUri: uri, data: new ArrayBuffer(bytes), headers: {}, status: 200, timeMs, originalRequest: request };
      return shaka.util.AbortableOperation.completed(response);
    }) as never,
    shaka.net.NetworkingEngine.PluginPriority.APPLICATION,
  );
}

/** A stream as a manifest parser makes it, with what CMCD reads (a segment index for `nor` and its rtp). */
function stream(id: number, type: 'video' | 'audio', kbps: number, extra: Partial<Stream> = {}): Stream {
  // Shaka's real SegmentIndex (its compiled build renames everything else): 4 s segments.
  const refs = Array.from(
    { length: 15 },
    (_, i) =>
      new shaka.media.SegmentReference(
        i * 4,
        i * 4 + 4,
        () => [`${SCHEME}://origin/media/seg-${id}-${i + 1}.m4s`],
        0,
        null,
        null,
        0,
        0,
        Infinity,
      ),
  );
  const segmentIndex = new shaka.media.SegmentIndex(refs);
  return {
    id,
    type,
    bandwidth: kbps * 1000,
    mimeType: `${type}/mp4`,
    codecs: type === 'video' ? 'avc1.64001f' : 'mp4a.40.2',
    segmentIndex,
    fastSwitching: false,
    ...extra,
  } as unknown as Stream;
}

/** The ladder of the test content: 5 video rungs × one 128 kbps audio, variant bandwidth = video + audio. */
export function ladder(): { variants: Variant[]; audio: Stream; video: Stream[] } {
  const audio = stream(100, 'audio', AUDIO_KBPS, { channelsCount: 2 } as Partial<Stream>);
  const video = VIDEO_LADDER.map((r, i) =>
    stream(i + 1, 'video', r.kbps, { width: r.width, height: r.height, frameRate: 25 } as Partial<Stream>),
  );
  const variants = video.map(
    (v, i) =>
      ({
        id: i + 1,
        video: v,
        audio,
        bandwidth: (v.bandwidth ?? 0) + (audio.bandwidth ?? 0),
        language: 'en',
        primary: false,
        allowedByApplication: true,
        allowedByKeySystem: true,
        disabledUntilTime: 0,
        decodingInfos: [],
      }) as unknown as Variant,
  );
  return { variants, audio, video };
}

export type Options = Parameters<typeof attach>[1];

/** A media element without media: its time and the events a test fires. */
export class FakeMediaElement extends EventTarget {
  currentTime = 0;
  fire(type: string): void {
    this.dispatchEvent(new Event(type));
  }
}

export async function setup(options: Options = {}, shakaConfig: object = {}) {
  registerScheme();
  wire.sent = [];
  wire.respond = undefined;
  const player = new shaka.Player();
  const element = new FakeMediaElement();
  // Shaka's CMCD needs a media element; a real one (happy-dom's), without MediaSource.
  await player.attach(document.createElement('video'), false);
  player.configure({ cmcd: { enabled: true, includeKeys: [], rtpSafetyFactor: 5 }, ...shakaConfig });
  let buffer: Record<'video' | 'audio', number> = { video: 0, audio: 0 };
  vi.spyOn(player, 'getMediaElement').mockImplementation(() => element as unknown as HTMLMediaElement);
  vi.spyOn(player, 'getBufferedInfo').mockImplementation(() => {
    const range = (s: number) => (s > 0 ? [{ start: element.currentTime, end: element.currentTime + s }] : []);
    return { total: range(Math.min(buffer.video, buffer.audio)), video: range(buffer.video), audio: range(buffer.audio), text: [] };
  });
  const history = memoryStore();
  const sammy = attach(player, { initialHistory: history, ...options });
  const decisions: SammyDecision[] = [];
  const samples: SegmentSample[] = [];
  sammy.on('decision', (d) => decisions.push(d));
  sammy.on('sample', (s) => samples.push(s));
  const { variants, audio, video } = ladder();
  const switches: Variant[] = [];

  /** The AbrManager as Shaka's load makes and drives it (lib/player.js: load → loadInner_). */
  const load = (): AbrManager => {
    player.dispatchEvent(new shaka.util.FakeEvent('loading'));
    const abr = player.getConfiguration().abrFactory();
    abr.configure(player.getConfiguration().abr);
    abr.init(
      (v: Variant) => void switches.push(v),
      () => {},
    );
    abr.setMediaElement(element as unknown as HTMLMediaElement);
    abr.setVariants(variants, false);
    return abr;
  };

  /** The task after a segment's response, where Sammy switches (src/requests.ts), as Shaka appends the segment. */
  const settle = () => new Promise((resolve) => setTimeout(resolve));

  let n = 0;
  /**
   * One request through the real networking engine; resolves once its operation has ended and
   * the next task ran (where Sammy switches), or with `settle: false` as the operation ends.
   */
  const request = async (
    kind: 'video' | 'audio' | 'init' | 'manifest',
    opts: { stream?: Stream; bytes?: number; timeMs?: number; segment?: number; settle?: boolean } = {},
  ) => {
    wire.next = { bytes: opts.bytes ?? 100_000, timeMs: opts.timeMs ?? 100 };
    const net = player.getNetworkingEngine()!;
    const { RequestType, AdvancedRequestType } = shaka.net.NetworkingEngine;
    const retry = shaka.net.NetworkingEngine.defaultRetryParameters();
    n++;
    if (kind === 'manifest') {
      await net.request(RequestType.MANIFEST, shaka.net.NetworkingEngine.makeRequest([`${SCHEME}://origin/media/manifest.mpd`], retry), {
        type: AdvancedRequestType.MPD,
      }).promise;
    } else {
      const s = opts.stream ?? (kind === 'audio' ? audio : video[video.length - 1]!);
      const uri = `${SCHEME}://origin/media/seg-${s.id}-${n}.m4s`;
      const at = (opts.segment ?? 2) * 4;
      const segment =
        kind === 'init' ? undefined : new shaka.media.SegmentReference(at, at + 4, () => [uri], 0, null, null, 0, 0, Infinity);
      const type = kind === 'init' ? AdvancedRequestType.INIT_SEGMENT : AdvancedRequestType.MEDIA_SEGMENT;
      await net.request(RequestType.SEGMENT, shaka.net.NetworkingEngine.makeRequest([uri], retry), { type, stream: s, segment }).promise;
      if (opts.settle !== false) await settle();
    }
    return wire.sent.at(-1)!;
  };

  return {
    player,
    sammy,
    history,
    element,
    decisions,
    samples,
    switches,
    variants,
    audio,
    video,
    load,
    /** A load played as Shaka drives it: its first choice, the AbrManager enabled, the element playing. */
    playing(): AbrManager {
      const abr = load();
      abr.chooseVariant();
      abr.enable();
      element.fire('playing');
      return abr;
    },
    request,
    settle,
    wire,
    setBuffer: (b: Partial<Record<'video' | 'audio', number>>) => (buffer = { ...buffer, ...b }),
    play: () => element.fire('playing'),
  };
}

/** The CMCD a request carried (query or headers), decoded by cml-cmcd. */
export function cmcdOf(sent: { uri: string; headers: Record<string, string> }): Record<string, unknown> {
  const query = new URL(sent.uri).searchParams;
  return query.has('CMCD') ? (fromCmcdQuery(query) as Record<string, unknown>) : (fromCmcdHeaders(sent.headers) as Record<string, unknown>);
}

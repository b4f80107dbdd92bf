/**
 * Reading the HLS playlists the DASH muxer writes (`-hls_playlist`): the multivariant playlist's
 * variants and alternate renditions, and each media playlist's init segment and segments. Just
 * enough of RFC 8216 to check generated content (tests, e2e), not a general parser.
 */

/** An attribute list (`BANDWIDTH=431205,CODECS="avc1.42c015,mp4a.40.2"`), quotes removed. */
export function parseAttributes(list: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const m of list.matchAll(/([A-Z0-9-]+)=("[^"]*"|[^,]*)/g)) {
    attributes[m[1]!] = m[2]!.startsWith('"') ? m[2]!.slice(1, -1) : m[2]!;
  }
  return attributes;
}

export interface HlsVariant {
  /** EXT-X-STREAM-INF attributes (BANDWIDTH, RESOLUTION, CODECS, AUDIO…). */
  attributes: Record<string, string>;
  bandwidth: number;
  uri: string;
}

export interface HlsRendition {
  /** EXT-X-MEDIA attributes (TYPE, GROUP-ID, NAME, DEFAULT, URI…). */
  attributes: Record<string, string>;
  uri: string | undefined;
}

export interface HlsMultivariant {
  variants: HlsVariant[];
  renditions: HlsRendition[];
}

function lines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

export function parseMultivariantPlaylist(text: string): HlsMultivariant {
  const all = lines(text);
  if (all[0] !== '#EXTM3U') throw new Error('not an HLS playlist (no #EXTM3U)');
  const variants: HlsVariant[] = [];
  const renditions: HlsRendition[] = [];
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!;
    if (line.startsWith('#EXT-X-MEDIA:')) {
      const attributes = parseAttributes(line.slice('#EXT-X-MEDIA:'.length));
      renditions.push({ attributes, uri: attributes.URI });
    } else if (line.startsWith('#EXT-X-STREAM-INF:')) {
      const attributes = parseAttributes(line.slice('#EXT-X-STREAM-INF:'.length));
      const uri = all[i + 1];
      if (uri === undefined || uri.startsWith('#')) throw new Error(`EXT-X-STREAM-INF without a URI: ${line}`);
      variants.push({ attributes, bandwidth: Number(attributes.BANDWIDTH), uri });
      i++;
    }
  }
  return { variants, renditions };
}

export interface HlsSegment {
  uri: string;
  durationS: number;
}

export interface HlsMediaPlaylist {
  targetDurationS: number;
  /** EXT-X-MAP URI: the init segment. */
  mapUri: string | undefined;
  segments: HlsSegment[];
  endList: boolean;
}

export function parseMediaPlaylist(text: string): HlsMediaPlaylist {
  const all = lines(text);
  if (all[0] !== '#EXTM3U') throw new Error('not an HLS playlist (no #EXTM3U)');
  const playlist: HlsMediaPlaylist = { targetDurationS: NaN, mapUri: undefined, segments: [], endList: false };
  let pending: number | undefined;
  for (const line of all) {
    if (line.startsWith('#EXT-X-TARGETDURATION:')) playlist.targetDurationS = Number(line.slice('#EXT-X-TARGETDURATION:'.length));
    else if (line.startsWith('#EXT-X-MAP:')) playlist.mapUri = parseAttributes(line.slice('#EXT-X-MAP:'.length)).URI;
    else if (line.startsWith('#EXTINF:')) pending = Number.parseFloat(line.slice('#EXTINF:'.length));
    else if (line === '#EXT-X-ENDLIST') playlist.endList = true;
    else if (!line.startsWith('#')) {
      if (pending === undefined) throw new Error(`segment without EXTINF: ${line}`);
      playlist.segments.push({ uri: line, durationS: pending });
      pending = undefined;
    }
  }
  return playlist;
}

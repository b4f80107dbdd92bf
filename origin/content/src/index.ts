/** The test video: a DASH ladder, with HLS playlists for the same segments, generated once with the ffmpeg shipped in an npm package. */
export {
  CONTENT_VERSION,
  ensureContent,
  generateLadder,
  ffmpegPath,
  type EnsureContentOptions,
  type EnsuredContent,
  type GenerateOptions,
} from './generate.js';
export { DEFAULT_LADDER, FILM_4K_LADDER, ladderFfmpegArgs, mediaSegmentOf, type LadderSpec, type Rung } from './ladder.js';
export { DEFAULT_LADDER_DIR, DEFAULT_MEDIA_ROOT, DEFAULT_SITE_DIR, HLS_MASTER_NAME, REPO_ROOT } from './paths.js';
export {
  parseAttributes,
  parseMediaPlaylist,
  parseMultivariantPlaylist,
  type HlsMediaPlaylist,
  type HlsMultivariant,
  type HlsRendition,
  type HlsSegment,
  type HlsVariant,
} from './hls-playlists.js';

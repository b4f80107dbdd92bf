/** The test video: a DASH ladder generated once with the ffmpeg shipped in an npm package. */
export { ensureContent, generateLadder, ffmpegPath, type EnsureContentOptions, type EnsuredContent, type GenerateOptions } from './generate.js';
export { DEFAULT_LADDER, ladderFfmpegArgs, type LadderSpec, type Rung } from './ladder.js';
export { DEFAULT_LADDER_DIR, DEFAULT_MEDIA_ROOT, DEFAULT_SITE_DIR, REPO_ROOT } from './paths.js';

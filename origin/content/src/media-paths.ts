/**
 * Where this project's origins serve media, and the default test ladder's manifest: the origin
 * serves it, the demo page and the lab bench play it. Browser-safe (`@sammy/test-content/media-paths`);
 * not the published packages' business, which pace whatever path they are mounted on.
 */
export const MEDIA_PATH = '/media';
/** The default ladder's directory under the media root. */
export const DEFAULT_LADDER_NAME = 'default';
export const MANIFEST_NAME = 'manifest.mpd';
export const DEFAULT_MANIFEST_PATH = `${MEDIA_PATH}/${DEFAULT_LADDER_NAME}/${MANIFEST_NAME}`;
/** The HLS multivariant playlist the content generator writes beside the MPD, naming the same segments. */
export const HLS_MASTER_NAME = 'master.m3u8';
export const DEFAULT_HLS_MASTER_PATH = `${MEDIA_PATH}/${DEFAULT_LADDER_NAME}/${HLS_MASTER_NAME}`;

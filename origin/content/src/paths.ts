/** Where generated content lives: the repository's gitignored `.cache/`, found from this file, not the cwd. */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { DEFAULT_LADDER_NAME } from './media-paths.js';

/** The media URL layout the origins, the demo page, the lab and the tests share (`./media-paths`, browser-safe). */
export { DEFAULT_LADDER_NAME, HLS_MASTER_NAME, MANIFEST_NAME } from './media-paths.js';

/** origin/src/content or origin/dist/content → the repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Served at `/media/`. */
export const DEFAULT_MEDIA_ROOT = join(REPO_ROOT, '.cache', 'media');
export const DEFAULT_LADDER_DIR = join(DEFAULT_MEDIA_ROOT, DEFAULT_LADDER_NAME);
/** Built demo site, served at `/`. */
export const DEFAULT_SITE_DIR = join(REPO_ROOT, 'demo-site', 'dist');

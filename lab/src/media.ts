/**
 * The bench plays the project's own test ladder, which the origin generates into .cache/media on
 * first use (with the ffmpeg shipped in npm). The lab only makes sure it exists, and can ask the
 * origin's generator for a longer version of the same ladder (sessions longer than 60 s).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_LADDER, DEFAULT_MEDIA_ROOT, ensureContent } from '@sammy/origin';

export { DEFAULT_MEDIA_ROOT };
export const DEFAULT_MANIFEST_PATH = '/media/default/manifest.mpd';

/** Manifest path of the default ladder re-encoded at another length. */
export function longLadderManifestPath(seconds: number): string {
  return `/media/lab-${seconds}s/manifest.mpd`;
}

export async function ensureMedia(mediaRoot: string, manifestPath: string, contentSeconds?: number): Promise<void> {
  const file = join(mediaRoot, manifestPath.replace(/^\/media\//, ''));
  if (contentSeconds !== undefined) {
    // Same ladder, longer: the origin's generator with only the duration changed (cached by its stamp).
    await ensureContent({ dir: join(mediaRoot, `lab-${contentSeconds}s`), spec: { ...DEFAULT_LADDER, durationS: contentSeconds }, progress: true });
    return;
  }
  if (existsSync(file)) return;
  if (mediaRoot !== DEFAULT_MEDIA_ROOT || manifestPath !== DEFAULT_MANIFEST_PATH) {
    throw new Error(`${file} not found; pass --media-dir/--manifest of an existing ladder`);
  }
  const made = await ensureContent({ progress: true });
  if (!existsSync(file)) throw new Error(`origin generated ${made.manifestPath}, but ${file} is still missing`);
}

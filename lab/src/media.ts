/**
 * What the bench plays. By default the lab ladder: the origin's test ladder re-encoded to top out at
 * the paper's 3.3 Mbps and long enough for a minutes-deep buffer (encoded once with the origin's
 * generator and ffmpeg from npm, cached in .cache/media/lab). The smoke test plays the origin's
 * default ladder, which the other tests have already made.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_LADDER, DEFAULT_MEDIA_ROOT, ensureContent, FILM_4K_LADDER, type LadderSpec } from '@sammy/test-content';
import { DEFAULT_MANIFEST_PATH, HLS_MASTER_NAME } from '@sammy/test-content/media-paths';

export { DEFAULT_MANIFEST_PATH, DEFAULT_MEDIA_ROOT };

/**
 * The paper's lab video topped out at 3.3 Mbps (Section 6): the origin's ladder with its two 720p
 * rungs moved down to 2.3 and 3.3 Mbps. 240 s: a 240 s buffer target can fill within a 40 s session.
 */
export const LAB_LADDER: LadderSpec = {
  ...DEFAULT_LADDER,
  rungs: [...DEFAULT_LADDER.rungs.filter((r) => r.height < 720), ...[2300, 3300].map((kbps) => ({ kbps, width: 1280, height: 720 }))],
  durationS: 240,
};
export const LAB_MANIFEST_PATH = '/media/lab/manifest.mpd';

/** The 4K-like film (`--media 4k`, issue 40): top rung 15.6 Mbit/s, made once and cached like the lab ladder. */
export const FILM_4K_MANIFEST_PATH = '/media/film-4k/manifest.mpd';

/** What `--media` names: the lab ladder (3.3 Mbit/s top, the paper's) or the 4K-like film. */
export const MEDIA_NAMES = ['lab', '4k'] as const;
export type MediaName = (typeof MEDIA_NAMES)[number];
export function isMediaName(v: string): v is MediaName {
  return (MEDIA_NAMES as readonly string[]).includes(v);
}

/** Manifest path of the lab ladder encoded at another length. */
export function labLadderManifestPath(seconds: number): string {
  return seconds === LAB_LADDER.durationS ? LAB_MANIFEST_PATH : `/media/lab-${seconds}s/manifest.mpd`;
}

/** The file a manifest path on the lab server maps to: its `/media/` prefix is `mediaRoot`. */
export function manifestFile(mediaRoot: string, manifestPath: string): string {
  return join(mediaRoot, manifestPath.replace(/^\/media\//, ''));
}

/** The HLS multivariant playlist the content generator writes beside a ladder's MPD (same segments): what the hls.js arms play. */
export function hlsMasterPath(manifestPath: string): string {
  return manifestPath.replace(/[^/]*$/, HLS_MASTER_NAME);
}

/** Makes sure the manifest exists, encoding the lab ladder (at `contentSeconds`) or the origin's default ladder when it is one of those. */
export async function ensureMedia(mediaRoot: string, manifestPath: string, contentSeconds?: number): Promise<void> {
  const file = manifestFile(mediaRoot, manifestPath);
  if (mediaRoot === DEFAULT_MEDIA_ROOT && manifestPath === DEFAULT_MANIFEST_PATH) {
    await ensureContent({ progress: true });
  } else if (manifestPath === FILM_4K_MANIFEST_PATH) {
    await ensureContent({ dir: dirname(file), spec: FILM_4K_LADDER, progress: true });
  } else if (manifestPath === labLadderManifestPath(contentSeconds ?? LAB_LADDER.durationS)) {
    // Cached by the generator's stamp: re-encoded only when the spec changes.
    // A lab ladder's path always ends in /manifest.mpd: its directory is the ladder's.
    await ensureContent({ dir: dirname(file), spec: { ...LAB_LADDER, durationS: contentSeconds ?? LAB_LADDER.durationS }, progress: true });
  }
  if (!existsSync(file)) throw new Error(`${file} not found; pass --media-dir/--manifest of an existing ladder`);
}

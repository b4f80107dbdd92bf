/** The test ladder: what to encode, and the ffmpeg arguments that encode it. */

export interface Rung {
  /** Nominal video bitrate, kbps (the MPD's `bandwidth` / 1000). */
  kbps: number;
  width: number;
  height: number;
}

export interface LadderSpec {
  rungs: readonly Rung[];
  durationS: number;
  segmentS: number;
  fps: number;
  audioKbps: number;
  /** x264 preset: speed matters more than efficiency for test content. */
  preset: string;
}

/** 300 kbps to 6 Mbps, 4 s segments, 60 s: at most ~70 s of encoding on two cores. */
export const DEFAULT_LADDER: LadderSpec = {
  rungs: [
    { kbps: 300, width: 426, height: 240 },
    { kbps: 750, width: 640, height: 360 },
    { kbps: 1500, width: 854, height: 480 },
    { kbps: 3000, width: 1280, height: 720 },
    { kbps: 6000, width: 1280, height: 720 },
  ],
  durationS: 60,
  segmentS: 4,
  fps: 24,
  audioKbps: 128,
  preset: 'ultrafast',
};

/**
 * A film shaped like a 4K title's ladder (issue 40): the bitrates of a streaming service's ladder up
 * to ~15.6 Mbit/s (Apple's HLS authoring specification lists 4.5, 7.8, 11.6 and 16.8 Mbit/s tiers for
 * 720p to 2160p), so the film takes a real share of a 40 Mbit/s home link. Resolution is not the
 * point and costs encoding time: every rung is small, CBR with filler (see ladderFfmpegArgs), so
 * segment sizes follow the bitrates. 240 s of 4 s segments: a 240 s buffer target keeps an unpaced
 * player downloading for the whole of a 40–60 s session.
 */
export const FILM_4K_LADDER: LadderSpec = {
  ...DEFAULT_LADDER,
  durationS: 240,
  rungs: [
    { kbps: 750, width: 256, height: 144 },
    { kbps: 1500, width: 384, height: 216 },
    { kbps: 3000, width: 512, height: 288 },
    { kbps: 4500, width: 640, height: 360 },
    { kbps: 7800, width: 768, height: 432 },
    { kbps: 11600, width: 896, height: 504 },
    { kbps: 15600, width: 1024, height: 576 },
  ],
};

export const INIT_SEGMENT_TEMPLATE = 'init-$RepresentationID$.m4s';
export const MEDIA_SEGMENT_TEMPLATE = 'seg-$RepresentationID$-$Number%05d$.m4s';

/** A path ending in a media segment named by MEDIA_SEGMENT_TEMPLATE. */
const MEDIA_SEGMENT_PATH = /\/seg-([^/]+)-(\d+)\.m4s$/;

/** The representation and number of a media segment's path (MEDIA_SEGMENT_TEMPLATE); undefined for any other path. */
export function mediaSegmentOf(path: string): { representationId: string; number: number } | undefined {
  const m = MEDIA_SEGMENT_PATH.exec(path);
  return m ? { representationId: m[1]!, number: Number(m[2]) } : undefined;
}

/**
 * ffmpeg arguments for a DASH ladder: one synthetic source (test pattern plus temporal noise, so
 * every rung is busy enough to fill its bitrate) split into the rungs, each x264 CBR with HRD
 * filler (nal-hrd=cbr, minrate = maxrate = bitrate, 1 s VBV) so each segment's size stays close
 * to its nominal bandwidth; closed GOPs of exactly one segment; AAC audio in its own adaptation set.
 * The DASH muxer also writes HLS playlists naming the same segment files (`-hls_playlist`).
 */
export function ladderFfmpegArgs(spec: LadderSpec, manifestPath: string): string[] {
  const top = spec.rungs.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
  const n = spec.rungs.length;
  const gop = spec.segmentS * spec.fps;
  const splits = spec.rungs.map((_, i) => `[s${i}]`).join('');
  const scales = spec.rungs.map((r, i) => `[s${i}]scale=${r.width}:${r.height}[v${i}]`).join(';');
  const filter = `[0:v]noise=alls=12:allf=t,split=${n}${splits};${scales}`;
  const perRung = spec.rungs.flatMap((r, i) => [
    '-map',
    `[v${i}]`,
    `-b:v:${i}`,
    `${r.kbps}k`,
    `-minrate:v:${i}`,
    `${r.kbps}k`,
    `-maxrate:v:${i}`,
    `${r.kbps}k`,
    `-bufsize:v:${i}`,
    `${r.kbps}k`,
  ]);
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostats',
    '-progress',
    'pipe:1',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=${top.width}x${top.height}:rate=${spec.fps}:duration=${spec.durationS}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:beep_factor=4:sample_rate=48000:duration=${spec.durationS}`,
    '-filter_complex',
    filter,
    ...perRung,
    '-map',
    '1:a',
    '-c:v',
    'libx264',
    '-preset',
    spec.preset,
    '-profile:v',
    'high',
    '-pix_fmt',
    'yuv420p',
    '-g',
    String(gop),
    '-keyint_min',
    String(gop),
    '-sc_threshold',
    '0',
    '-x264-params',
    'nal-hrd=cbr:force-cfr=1',
    '-c:a',
    'aac',
    '-b:a',
    `${spec.audioKbps}k`,
    '-ac',
    '2',
    '-f',
    'dash',
    '-seg_duration',
    String(spec.segmentS),
    '-use_template',
    '1',
    '-use_timeline',
    '0',
    '-init_seg_name',
    INIT_SEGMENT_TEMPLATE,
    '-media_seg_name',
    MEDIA_SEGMENT_TEMPLATE,
    '-adaptation_sets',
    'id=0,streams=v id=1,streams=a',
    // HLS for the same CMAF segments: master.m3u8 (audio as an alternate rendition group) and one
    // media playlist per stream (media_<stream>.m3u8, each with its EXT-X-MAP init segment).
    '-hls_playlist',
    '1',
    manifestPath,
  ];
}

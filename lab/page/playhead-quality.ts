/**
 * The rendered video quality from the playhead, for a player that only says which quality it
 * downloaded (Shaka): each video segment's media time range and bitrate, and on every
 * `timeupdate` the bitrate of the segment under the playhead, reported when it changes.
 */
export class PlayheadQuality {
  readonly #segments: Array<{ start: number; end: number; kbps: number }> = [];
  #last: number | undefined;

  constructor(
    private readonly video: HTMLVideoElement,
    private readonly report: (kbps: number) => void,
  ) {
    video.addEventListener('timeupdate', () => this.#check());
    video.addEventListener('playing', () => this.#check());
  }

  /** A video segment downloaded for [start, end) s of media time; a later download of the same time replaces it in the buffer. */
  add(start: number, end: number, kbps: number): void {
    this.#segments.push({ start, end, kbps });
  }

  #check(): void {
    const t = this.video.currentTime;
    for (let i = this.#segments.length - 1; i >= 0; i--) {
      const s = this.#segments[i]!;
      if (t >= s.start && t < s.end) {
        if (s.kbps !== this.#last) {
          this.#last = s.kbps;
          this.report(s.kbps);
        }
        return;
      }
    }
  }
}

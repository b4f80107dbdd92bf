import type { MediaKind } from './players/player.js';
import { pathOf } from 'sammy-pacing-protocol';

/**
 * The media segments this player asked for, by path. Delivery records and Resource Timing
 * entries name a response by URL only; this tells which are ours and whether video or audio
 * (the origin's records cover every client it serves).
 */
export class RequestedSegments {
  private readonly kinds = new Map<string, MediaKind>();

  /** Remembers a requested URL; the CMCD query parameter is irrelevant, only the path counts. */
  add(url: string, kind: MediaKind): void {
    this.kinds.set(pathOf(url), kind);
    // Bounded: the oldest entries go (a Map iterates in insertion order).
    if (this.kinds.size > 5000) this.kinds.delete(this.kinds.keys().next().value!);
  }

  /** Video or audio for a URL or path this player requested, else undefined. */
  kindOf(urlOrPath: string): MediaKind | undefined {
    return this.kinds.get(pathOf(urlOrPath));
  }

  clear(): void {
    this.kinds.clear();
  }
}

/** Which half of a session a request belongs to (paper, Section 4). */
export type Phase = 'initial' | 'playing';

export type MediaKind = 'video' | 'audio';

export function isMediaKind(type: unknown): type is MediaKind {
  return type === 'video' || type === 'audio';
}

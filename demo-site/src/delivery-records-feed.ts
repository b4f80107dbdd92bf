import { RECORD_EVENT, type DeliveryRecord } from 'sammy-pacing-protocol';

/**
 * Follows the origin's live delivery records (Server-Sent Events). Calls `onUnavailable` once
 * if the stream cannot be opened or is closed for good, so the page can fall back to
 * `Server-Timing`; a stream that drops after opening is retried by EventSource itself.
 */
export function followDeliveryRecords(url: string, onRecord: (record: DeliveryRecord) => void, onUnavailable: () => void): () => void {
  const source = new EventSource(url);
  let opened = false;
  source.onopen = () => {
    opened = true;
  };
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED || !opened) {
      source.close();
      onUnavailable();
    }
  };
  source.addEventListener(RECORD_EVENT, (event) => {
    try {
      onRecord(JSON.parse((event as MessageEvent<string>).data) as DeliveryRecord);
    } catch {
      // A malformed record is skipped; the graph just lacks that point.
    }
  });
  return () => source.close();
}

/** Unmatched entries kept on each side: a few minutes of segments, and an upper bound on memory. */
const PENDING_CAPACITY = 500;

/**
 * This page's own records. The origin's records cover every client it serves; each response this
 * page receives names its record (Server-Timing `sammy-id`, read through Resource Timing), so a
 * record is ours exactly when its id is one of those — never guessed from path and time. The
 * record (SSE) and the id (a PerformanceObserver callback) arrive in either order: whichever
 * comes first waits for the other, in bounded maps.
 */
export class OwnRecords<Tag> {
  private readonly ids = new Map<number, Tag>();
  private readonly records = new Map<number, DeliveryRecord>();

  constructor(private readonly onOwn: (record: DeliveryRecord, tag: Tag) => void) {}

  /** A response of this page carried record id `id`; `tag` (e.g. video or audio) goes with its record. */
  addResponse(id: number, tag: Tag): void {
    const record = this.records.get(id);
    if (record) {
      this.records.delete(id);
      this.onOwn(record, tag);
    } else {
      remember(this.ids, id, tag);
    }
  }

  addRecord(record: DeliveryRecord): void {
    const tag = this.ids.get(record.id);
    if (tag !== undefined) {
      this.ids.delete(record.id);
      this.onOwn(record, tag);
    } else {
      remember(this.records, record.id, record);
    }
  }

  clear(): void {
    this.ids.clear();
    this.records.clear();
  }
}

function remember<V>(map: Map<number, V>, key: number, value: V): void {
  map.set(key, value);
  // The oldest go first (a Map iterates in insertion order): other clients' records never match.
  if (map.size > PENDING_CAPACITY) map.delete(map.keys().next().value!);
}

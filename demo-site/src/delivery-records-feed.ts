import { RECORD_EVENT, type DeliveryRecord } from 'sammy-pacing-protocol';

/**
 * Follows the origin's live delivery records (Server-Sent Events). Calls `onUnavailable` once
 * if the stream cannot be opened or is closed for good, so the page can fall back to
 * `Server-Timing`; a stream that drops after opening is retried by EventSource itself.
 */
export function followDeliveryRecords(
  url: string,
  onRecord: (record: DeliveryRecord) => void,
  onUnavailable: () => void,
): () => void {
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

/**
 * A bounded, in-memory log of delivery records, with live subscribers (the records handler's SSE stream).
 * Ids are allocated when a request arrives (so the response can echo its id) and records are added
 * when their delivery ends: the log is in order of completion, ids are not.
 */
import type { DeliveryRecord } from 'sammy-pacing-protocol';

export const DEFAULT_RECORD_CAPACITY = 1000;

/** A record to add: with the id allocated for its request, or without (one is allocated now). */
export type NewDeliveryRecord = Omit<DeliveryRecord, 'id'> & { id?: number };
export type RecordListener = (record: DeliveryRecord) => void;

export class DeliveryRecordLog {
  readonly #capacity: number;
  readonly #ring: DeliveryRecord[] = [];
  #next = 0;
  #nextId = 1;
  readonly #listeners = new Set<RecordListener>();

  constructor(capacity: number = DEFAULT_RECORD_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`record capacity must be a positive integer, got ${capacity}`);
    this.#capacity = capacity;
  }

  /** A fresh id for a response whose record will be added later. */
  allocateId(): number {
    return this.#nextId++;
  }

  add(fields: NewDeliveryRecord): DeliveryRecord {
    const { id = this.allocateId(), ...rest } = fields;
    const record: DeliveryRecord = { id, ...rest };
    if (this.#ring.length < this.#capacity) this.#ring.push(record);
    else this.#ring[this.#next] = record;
    this.#next = (this.#next + 1) % this.#capacity;
    for (const listener of this.#listeners) listener(record);
    return record;
  }

  /** Records oldest first. */
  list(): DeliveryRecord[] {
    return this.#ring.length < this.#capacity ? [...this.#ring] : [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)];
  }

  /** Calls `listener` for each new record until the returned function is called. */
  subscribe(listener: RecordListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.#listeners.size;
  }
}

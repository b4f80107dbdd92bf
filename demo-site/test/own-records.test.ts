import { describe, expect, it } from 'vitest';
import type { DeliveryRecord } from 'sammy-pacing-protocol';
import { OwnRecords } from '../src/delivery-records-feed.js';

function record(id: number, path = `/media/default/seg-4-${id}.m4s`): DeliveryRecord {
  return {
    id,
    path,
    status: 200,
    bytes: 1000,
    bytesExact: true,
    bytesWritten: 1000,
    startedAt: 0,
    finishedAt: 1,
    durationMs: 1,
    achievedKbps: 8,
    mechanism: 'kernel',
    endReason: 'delivered',
    aborted: false,
  };
}

describe('OwnRecords', () => {
  it('keeps exactly the records whose id one of our responses carried, whichever arrives first', () => {
    const own: Array<[number, string]> = [];
    const join = new OwnRecords<string>((r, tag) => own.push([r.id, tag]));
    join.addRecord(record(1)); // ours, record first
    join.addRecord(record(2, '/media/default/seg-4-1.m4s')); // another client's, same path as ours
    join.addResponse(1, 'video');
    join.addResponse(3, 'audio'); // ours, id first
    join.addRecord(record(3));
    join.addRecord(record(4));
    expect(own).toEqual([
      [1, 'video'],
      [3, 'audio'],
    ]);
  });

  it('matches each record once, forgets on clear, and stays bounded', () => {
    const own: number[] = [];
    const join = new OwnRecords<string>((r) => own.push(r.id));
    join.addResponse(5, 'video');
    join.addRecord(record(5));
    join.addRecord(record(5));
    join.addResponse(6, 'video');
    join.clear();
    join.addRecord(record(6));
    expect(own).toEqual([5]);
    // Thousands of other clients' records: the oldest are dropped, so an old id no longer matches.
    for (let id = 100; id < 10_000; id++) join.addRecord(record(id));
    join.addResponse(100, 'video');
    join.addResponse(9_999, 'video');
    expect(own).toEqual([5, 9_999]);
  });
});

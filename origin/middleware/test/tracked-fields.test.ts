/**
 * A record's measured fields say what was measured, or that it was not: the last acknowledgement's
 * time comes from TCP_INFO in kernel ticks, so a small response on a fast link can end "before" its
 * first byte was written — too quick to time, not 0 kbps.
 */
import { describe, expect, it } from 'vitest';
import { trackedFields } from '../src/engine/paced-response.js';

const facts = {
  status: 200,
  bytes: 50_000,
  bytesExact: true,
  bytesWritten: 50_000,
  wallOffset: 1_000_000,
  retransmitsBefore: undefined,
  info: undefined,
  reason: 'delivered',
} as const;

describe('trackedFields', () => {
  it('gives the achieved rate of a delivery that took time', () => {
    expect(trackedFields({ ...facts, startAt: 100, endAt: 150 })).toMatchObject({
      durationMs: 50,
      achievedKbps: 8000,
      startedAt: 1_000_100,
      finishedAt: 1_000_150,
    });
  });
  it('gives no rate for one too quick to time (its end read before its start), never 0 kbps', () => {
    for (const endAt of [100, 98]) {
      const fields = trackedFields({ ...facts, startAt: 100, endAt });
      expect(fields.durationMs).toBe(0);
      expect(fields.achievedKbps).toBeUndefined();
    }
  });
});

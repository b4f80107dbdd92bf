/**
 * A player on another origin against an Express app set up as the README shows:
 * `app.use(cors(sammyCorsOptions))` before `sammyPacing()`. Real `cors` package, real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import cors from 'cors';
import express from 'express';
import { CMCD_HEADER_FIELDS } from '@svta/cml-cmcd';
import { CONGESTION_CONTROL_HEADER, parseServerTiming } from 'sammy-pacing-protocol';
import { MEDIA_PATH } from '@sammy/test-content/media-paths';
import { sammyCorsOptions } from '../src/cors-options.js';
import { silentLogger } from '../src/logger.js';
import { sammyPacing } from '../src/middleware.js';
import { get, makeMediaDir, waitFor } from './helpers.js';

const PLAYER_ORIGIN = 'https://player.example';
const media = makeMediaDir([2000]);
const pacing = sammyPacing({ logger: silentLogger });
const app = express();
app.use(cors(sammyCorsOptions));
app.use(pacing);
app.use(MEDIA_PATH, express.static(media.dir, { fallthrough: false, index: false }));
const server = createServer(app);
let origin: { url: string };

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
});
afterAll(async () => {
  pacing.close();
  await new Promise((resolve) => server.close(resolve));
  media.remove();
});

function listed(header: string | string[] | undefined): string[] {
  return String(header ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}

describe('cors(sammyCorsOptions)', () => {
  it('answers the preflight for every CMCD header, the congestion-control header and Range', async () => {
    const asked = [...CMCD_HEADER_FIELDS, CONGESTION_CONTROL_HEADER, 'Range'].map((h) => h.toLowerCase());
    const res = await get(origin, '/media/test/seg-2000.m4s', {
      method: 'OPTIONS',
      headers: { Origin: PLAYER_ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': asked.join(',') },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(listed(res.headers['access-control-allow-methods'])).toEqual(expect.arrayContaining(['get', 'head']));
    expect(listed(res.headers['access-control-allow-headers'])).toEqual(expect.arrayContaining(asked));
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    // Answered before the pacing middleware: a preflight is neither paced nor recorded.
    expect(res.headers['server-timing']).toBeUndefined();
    expect(pacing.records.list()).toEqual([]);
  });

  it('a cross-origin GET in CMCD header mode is paced, and exposes Server-Timing and the range headers', async () => {
    const res = await get(origin, '/media/test/manifest.mpd', {
      headers: { Origin: PLAYER_ORIGIN, 'CMCD-Status': 'rtp=2000', 'CMCD-Object': 'br=1500,d=4000,ot=v' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(listed(res.headers['access-control-expose-headers'])).toEqual(
      expect.arrayContaining(['server-timing', 'content-length', 'content-range', 'accept-ranges']),
    );
    const report = parseServerTiming(String(res.headers['server-timing']));
    expect(report).toMatchObject({ requestedRtpKbps: 2000, appliedPaceKbps: 2000 });
    // Resource Timing shows Server-Timing cross-origin only with Timing-Allow-Origin.
    expect(res.headers['timing-allow-origin']).toBe('*');
    await waitFor(() => pacing.records.list().some((r) => r.id === report.recordId));
  });

  it('is frozen: one app cannot change another’s defaults', () => {
    expect(Object.isFrozen(sammyCorsOptions)).toBe(true);
    expect(() => sammyCorsOptions.allowedHeaders.push('X-Evil')).toThrow(TypeError);
  });
});

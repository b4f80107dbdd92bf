/**
 * The real dash.js 5 player with what it would know after loading a manifest stubbed in (no
 * media outside a browser): a 5-rung video ladder + 128 kbps audio, 12 s of buffer; the
 * interceptors and rules attach() installs are captured for the tests to drive.
 */
import { toCmcdQuery, fromCmcdQuery } from '@svta/cml-cmcd';
import { MediaPlayer } from 'dashjs';
import { vi } from 'vitest';
import { attach, memoryStore, type SammyDecision, type SegmentSample } from '../../src/index.js';
import type { DashRequest, DashResponse } from '../../src/player.js';

export type Player = ReturnType<ReturnType<typeof MediaPlayer>['create']>;
type RequestInterceptorLike = (request: DashRequest) => Promise<DashRequest>;
type ResponseInterceptorLike = (response: DashResponse) => Promise<DashResponse>;

export function setup(options: Parameters<typeof attach>[1] = {}, dashSettings?: object) {
  const player: Player = MediaPlayer().create();
  if (dashSettings) player.updateSettings(dashSettings);
  const requestInterceptors: RequestInterceptorLike[] = [];
  const responseInterceptors: ResponseInterceptorLike[] = [];
  const rules: Array<{ type: string; name: string; rule: unknown }> = [];
  // Kept here rather than in dash.js's context: no loader is built outside a browser.
  const extensions: Array<{ name: string; child: unknown; override: boolean }> = [];
  vi.spyOn(player, 'extend').mockImplementation(
    (name: string, child: object, override: boolean) => void extensions.push({ name, child, override }),
  );
  vi.spyOn(player, 'addRequestInterceptor').mockImplementation((i: unknown) => void requestInterceptors.push(i as never));
  vi.spyOn(player, 'addResponseInterceptor').mockImplementation((i: unknown) => void responseInterceptors.push(i as never));
  const addRule = player.addABRCustomRule.bind(player);
  vi.spyOn(player, 'addABRCustomRule').mockImplementation((type: string, name: string, rule: object) => {
    rules.push({ type, name, rule });
    addRule(type, name, rule);
  });
  // The stream dash.js would know after loading a manifest: a 5-rung video ladder + 128 kbps audio, 12 s of buffer.
  vi.spyOn(player, 'getRepresentationsByType').mockImplementation(
    (type: string) =>
      (type === 'video' ? [300, 750, 1500, 3000, 6000] : [128]).map((b) => ({ bitrateInKbit: b, bandwidth: b * 1000 })) as never,
  );
  let buffer = 12;
  vi.spyOn(player, 'getBufferLength').mockImplementation(() => buffer);
  vi.spyOn(player, 'duration').mockReturnValue(60);
  const sammy = attach(player, { initialHistory: memoryStore(), ...options });
  const decisions: SammyDecision[] = [];
  const samples: SegmentSample[] = [];
  sammy.on('decision', (d) => decisions.push(d));
  sammy.on('sample', (s) => samples.push(s));
  return {
    player,
    sammy,
    requestInterceptors,
    responseInterceptors,
    rules,
    extensions,
    decisions,
    samples,
    setBuffer: (b: number) => (buffer = b),
  };
}

/** A request as dash.js 5 hands it to interceptors: CMCD already in the URL, its own rtp included. */
export function mediaRequest(mediaType = 'video', type = 'MediaSegment'): DashRequest {
  const cmcd = toCmcdQuery({ br: 3000, d: 4000, ot: mediaType === 'video' ? 'v' : 'a', rtp: 2000, sid: 's1' } as never, { version: 1 });
  return {
    url: `http://localhost/media/default/${mediaType}/seg-3.m4s?${cmcd}`,
    headers: {},
    customData: { request: { type, mediaType, bandwidth: 3_000_000, representation: { bitrateInKbit: 3000 } } },
  };
}

export const rtpOf = (req: DashRequest) => fromCmcdQuery(new URL(req.url).searchParams).rtp;

/** The test ladder as dash.js representations, kbps. */
export const REPRESENTATIONS = [300, 750, 1500, 3000, 6000].map((b) => ({ bitrateInKbit: b }));

/**
 * What dash.js hands a quality-switch rule for video: the ladder, and dash.js's own mapping of a
 * bitrate to the highest representation at or below it.
 */
export const videoRulesContext = {
  getMediaType: () => 'video',
  getMediaInfo: () => ({}),
  getAbrController: () => ({
    getPossibleVoRepresentationsFilteredBySettings: () => REPRESENTATIONS,
    getOptimalRepresentationForBitrate: (_: unknown, kbps: number) =>
      [...REPRESENTATIONS].reverse().find((r) => r.bitrateInKbit <= kbps) ?? REPRESENTATIONS[0],
  }),
};

/** A rule instance from the factory attach() registered with dash.js. */
export function sammyRule(ctx: { rules: Array<{ rule: unknown }> }) {
  const factory = ctx.rules[0]!.rule as (c: unknown) => {
    create(): { getSwitchRequest(x: unknown): { representation: { bitrateInKbit: number } | null; priority: number } };
  };
  return factory({}).create();
}

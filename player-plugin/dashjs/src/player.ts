/** dash.js 5's types from its own declarations (types only: the page brings its own dash.js); local ones where those are missing or wrong. */
import type { MediaPlayerClass, MediaPlayerSettingClass } from 'dashjs';

type RequestInterceptor = Parameters<MediaPlayerClass['addRequestInterceptor']>[0];
type ResponseInterceptor = Parameters<MediaPlayerClass['addResponseInterceptor']>[0];

/** A request's `customData`, declared as CMCD data: dash.js 5.2 keeps its own request there (its declared FragmentRequest lacks `bandwidth` and `representation`), its loader the abort handle. */
export interface LoadingData {
  request?: { type?: string | null; mediaType?: string | null; bandwidth?: number; representation?: { bitrateInKbit?: number } | null };
  abort?: () => void;
}
export type DashRequest = Omit<Parameters<RequestInterceptor>[0], 'customData'> & { customData?: LoadingData };
/** `resourceTiming.responseEnd`: dash.js sets it, its declarations omit it. */
export type DashResponse = Omit<Parameters<ResponseInterceptor>[0], 'request' | 'resourceTiming'> & {
  request: DashRequest;
  resourceTiming?: Partial<NonNullable<Parameters<ResponseInterceptor>[0]['resourceTiming']>> & { responseEnd?: number };
};
/** The interceptors as dash.js takes them (theirs take dash.js's requests, typed as above). */
export type DashInterceptors = { request: RequestInterceptor; response: ResponseInterceptor };

/** dash.js's settings, any part of them (its declarations make some parts whole: `throughput.ewma`…), and one of its ABR rules'. */
type DeepPartial<T> = T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;
export type DashSettingsLike = DeepPartial<MediaPlayerSettingClass>;
type Rules = NonNullable<NonNullable<NonNullable<DashSettingsLike['streaming']>['abr']>['rules']>;
export type DashRuleSettingsLike = NonNullable<Rules[keyof Rules]>;

/** dash.js 5's built-in rules, all off while Sammy's rule picks (each would fight the pace; abandon aborts paced downloads as too slow): its quality-switch rules (Constants.QUALITY_SWITCH_RULES), then the abandon rule. */
export const DASH_BUILT_IN_RULES = [
  'throughputRule',
  'bolaRule',
  'insufficientBufferRule',
  'switchHistoryRule',
  'droppedFramesRule',
  'l2ARule',
  'loLPRule',
  'abandonRequestsRule',
] as const satisfies ReadonlyArray<keyof Rules>;

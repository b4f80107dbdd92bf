/**
 * The slice of dash.js 5's MediaPlayer the adapter uses, typed structurally so the adapter
 * needs no runtime import of dash.js (the page brings its own copy).
 */
export interface CommonMediaRequestLike {
  url: string;
  headers?: Record<string, string>;
  /** `request`: dash.js's own request object; `abort`: what its loader cancels this download with, once it runs. */
  customData?: { request?: FragmentRequestLike; abort?: () => void };
}

interface FragmentRequestLike {
  type?: string | null;
  mediaType?: string | null;
  bandwidth?: number;
  representation?: { bitrateInKbit?: number } | null;
}

export interface CommonMediaResponseLike {
  request: CommonMediaRequestLike;
  status?: number | null;
  data?: unknown;
  resourceTiming?: { startTime?: number; responseEnd?: number; encodedBodySize?: number } | null;
}

export type RequestInterceptorLike = (request: CommonMediaRequestLike) => Promise<CommonMediaRequestLike>;
export type ResponseInterceptorLike = (response: CommonMediaResponseLike) => Promise<CommonMediaResponseLike>;

/** Payload fields of the dash.js events the adapter reads. */
export interface PlayerEventLike {
  mediaType?: string;
  /** playbackTimeUpdated: the media time, seconds. */
  time?: number;
}

export interface PlayerLike {
  getSettings(): DashSettingsLike;
  updateSettings(settings: object): void;
  addABRCustomRule(type: string, name: string, rule: object): void;
  removeABRCustomRule(name: string): void;
  addRequestInterceptor(interceptor: RequestInterceptorLike): void;
  removeRequestInterceptor(interceptor: RequestInterceptorLike): void;
  addResponseInterceptor(interceptor: ResponseInterceptorLike): void;
  removeResponseInterceptor(interceptor: ResponseInterceptorLike): void;
  on(type: string, listener: (event: PlayerEventLike) => void, scope?: object): void;
  off(type: string, listener: (event: PlayerEventLike) => void, scope?: object): void;
  getBufferLength(type: string): number;
  getRepresentationsByType(type: string): Array<{ bitrateInKbit?: number; bandwidth?: number }>;
  duration(): number;
  /** dash.js's extension point for its own classes: `override` true keeps the parent (`this.parent`). */
  extend(parentNameString: string, childInstance: object, override: boolean): void;
}

/** A dash.js rule's settings: `active`, and the parameters pace-only mode reads. */
export interface DashRuleSettingsLike {
  active?: boolean;
  parameters?: { throughputSafetyFactor?: number; abandonDurationMultiplier?: number };
}

export interface DashSettingsLike {
  streaming?: {
    buffer?: { bufferTimeDefault?: number; bufferTimeAtTopQuality?: number; bufferTimeAtTopQualityLongForm?: number; longFormContentDurationThreshold?: number; fastSwitchEnabled?: boolean | null };
    abr?: {
      rules?: Record<string, DashRuleSettingsLike | undefined>;
      initialBitrate?: { video?: number; audio?: number };
      throughput?: { bandwidthSafetyFactor?: number };
    };
    cmcd?: { enabled?: boolean; mode?: string; enabledKeys?: string[] };
  };
}

/** dash.js's HTTPRequest.MEDIA_SEGMENT_TYPE. */
export const MEDIA_SEGMENT_TYPE = 'MediaSegment';

/** Every built-in quality and abandon rule of dash.js 5: each would fight the pace (abandon aborts paced downloads as "too slow"). */
export const DASH_BUILT_IN_RULES = [
  'throughputRule',
  'bolaRule',
  'insufficientBufferRule',
  'switchHistoryRule',
  'droppedFramesRule',
  'abandonRequestsRule',
  'l2ARule',
  'loLPRule',
] as const;

/**
 * The slice of Shaka Player 5 the adapter uses: types only, from shaka-player's own declarations,
 * so the adapter has no runtime import of Shaka (the page brings its own build: compiled, UI, DASH
 * only…). Numbers below are Shaka's enums (lib/net/networking_engine.js), which are public API.
 */
import type shaka from 'shaka-player';

export type AbrManager = shaka.extern.AbrManager;
export type AbrConfiguration = shaka.extern.AbrConfiguration;
export type SwitchCallback = shaka.extern.AbrManager.SwitchCallback;
export type Variant = shaka.extern.Variant;
export type Stream = shaka.extern.Stream;
export type Request = shaka.extern.Request;
export type RequestContext = shaka.extern.RequestContext;
export type Response = shaka.extern.Response;
export type PlayerConfiguration = shaka.extern.PlayerConfiguration;

/**
 * What the adapter calls on a `shaka.Player`. Structural (a `Pick`), so a player from any of
 * Shaka's builds (compiled, UI, DASH/HLS only) fits.
 */
export type PlayerLike = Pick<
  shaka.Player,
  'getNetworkingEngine' | 'configure' | 'getConfiguration' | 'getBufferedInfo' | 'getMediaElement' | 'addEventListener' | 'removeEventListener'
>;

/** shaka.net.NetworkingEngine.RequestType.SEGMENT */
export const REQUEST_TYPE_SEGMENT = 1;
/** shaka.net.NetworkingEngine.AdvancedRequestType.MEDIA_SEGMENT */
export const MEDIA_SEGMENT = 1;

// The slice of Shaka Player 5 the adapter uses, types only: the page brings its own build (compiled, UI, DASH only…).
import type shaka from 'shaka-player';

export type AbrManager = shaka.extern.AbrManager;
export type AbrConfiguration = shaka.extern.AbrConfiguration;
export type Variant = shaka.extern.Variant;
export type Stream = shaka.extern.Stream;
export type Request = shaka.extern.Request;
export type RequestContext = shaka.extern.RequestContext;
export type Response = shaka.extern.Response;
/** What the adapter calls on a `shaka.Player`: a `Pick`, so a player from any of Shaka's builds fits. */
export type PlayerLike = Pick<
  shaka.Player,
  | 'getNetworkingEngine'
  | 'configure'
  | 'getConfiguration'
  | 'getBufferedInfo'
  | 'getMediaElement'
  | 'addEventListener'
  | 'removeEventListener'
>;

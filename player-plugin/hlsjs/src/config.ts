/**
 * `sammyConfig(config)`: the hls.js config Sammy needs, around the app's own. hls.js builds its
 * ABR controller and wraps its fragment loader once, in `new Hls(config)`, so these go in there;
 * `attach` then switches Sammy on for that player.
 */
import { sammyAbrController } from './abr-controller.js';
import type { AbrControllerClass, FragmentLoaderClass, HlsConfig } from './hls.js';
import { sammyFragmentLoader } from './loader.js';

/**
 * The app's hls.js config with Sammy's `abrController` (wrapping the app's, or hls.js's own) and
 * `fLoader` (wrapping the app's, or hls.js's `loader`), and CMCD on (`cmcd: {}`, hls.js's
 * defaults) unless configured: Sammy's `rtp` joins hls.js's CMCD payload.
 */
export function sammyConfig<T extends Partial<HlsConfig>>(config: T = {} as T): T & Partial<HlsConfig> {
  return {
    ...config,
    abrController: sammyAbrController(config.abrController as AbrControllerClass | undefined) as unknown as HlsConfig['abrController'],
    fLoader: sammyFragmentLoader(config.fLoader as FragmentLoaderClass | undefined) as unknown as HlsConfig['fLoader'],
    cmcd: config.cmcd ?? {},
  };
}

/**
 * Sammy's level choice as hls.js's `abrController`: hls.js's own (or the app's), wrapped, keeps its estimate
 * (`hls.bandwidthEstimate`, CMCD `mtp`), forced levels and abandon rule; only the auto levels are Sammy's, while it picks.
 */
import type { AbrComponentAPI, default as Hls } from 'hls.js';
import { delegate } from 'sammy-pacing-core';
import { isSammyLoader } from './loader.js';
import { hooks } from './requests.js';

export type AbrControllerClass = new (hls: Hls) => AbrComponentAPI;

// The players made with sammyConfig: whether their fLoader was Sammy's when built (before hls.js's CMCD wrapped it).
const withSammy = new WeakMap<object, boolean>();
export const madeWithSammyConfig = (hls: Hls): boolean => withSammy.get(hls) === true;

/** An `abrController` class deciding with Sammy around `Inner` (default: hls.js's own AbrController). */
export function sammyAbrController(Inner?: AbrControllerClass): AbrControllerClass {
  // A constructor that returns an object: `new` yields the delegate.
  return function (hls: Hls) {
    // hls.js's default from the player's own class: no runtime import of hls.js.
    const inner = new (
      Inner ?? (hls.constructor as unknown as { DefaultConfig: { abrController: AbrControllerClass } }).DefaultConfig.abrController
    )(hls);
    withSammy.set(hls, isSammyLoader(hls.config.fLoader));
    const sammyLevel = () => hooks.get(hls.config)?.chooseLevel();
    const own = {
      get firstAutoLevel() {
        return sammyLevel() ?? inner.firstAutoLevel;
      },
      get nextAutoLevel() {
        return sammyLevel() ?? inner.nextAutoLevel;
      },
      set nextAutoLevel(level: number) {
        inner.nextAutoLevel = level;
      },
    };
    return delegate(own, () => inner);
  } as unknown as AbrControllerClass;
}

/**
 * Sammy's level choice as an hls.js `abrController`. It wraps hls.js's own AbrController (or the
 * one the app configured) and keeps it running: its bandwidth estimate (`hls.bandwidthEstimate`,
 * CMCD `mtp`), its first-level and forced-level logic and its emergency abandon rule stay hls.js's.
 * While a Sammy session in its own mode is attached and on, `nextAutoLevel` and `firstAutoLevel`
 * are Sammy's; otherwise (pace-only, off, detached) they are hls.js's, unchanged.
 */
import { hooksOf } from './hooks.js';
import type { AbrControllerClass, AbrControllerLike, Hls } from './hls.js';
import { isSammyLoader } from './loader.js';

/**
 * Players whose ABR controller is Sammy's, and whether their `fLoader` was Sammy's too when it
 * was built (before hls.js's CMCD controller wrapped it): what `attach` checks.
 */
const withSammy = new WeakMap<object, { loader: boolean }>();

/** Whether `hls` was made with `sammyConfig`: its ABR controller and fragment loader. */
export function madeWithSammyConfig(hls: Hls): boolean {
  return withSammy.get(hls)?.loader === true;
}

/** hls.js's default ABR controller class, from the player's own class (no runtime import of hls.js). */
const defaultAbrController = (hls: Hls) => (hls.constructor as unknown as { DefaultConfig: { abrController: AbrControllerClass } }).DefaultConfig.abrController;

/** An `abrController` class deciding with Sammy around `Inner` (default: hls.js's own AbrController). */
export function sammyAbrController(Inner?: AbrControllerClass): AbrControllerClass {
  return class SammyAbrController implements AbrControllerLike {
    readonly #hls: Hls;
    readonly #inner: AbrControllerLike;

    constructor(hls: Hls) {
      const Base = Inner ?? defaultAbrController(hls);
      this.#hls = hls;
      this.#inner = new Base(hls);
      withSammy.set(hls, { loader: isSammyLoader(hls.config.fLoader) });
    }

    #sammyLevel(): number | undefined {
      return hooksOf(this.#hls.config)?.chooseLevel();
    }

    get bwEstimator() {
      return this.#inner.bwEstimator;
    }

    get firstAutoLevel(): number {
      return this.#sammyLevel() ?? this.#inner.firstAutoLevel;
    }

    get forcedAutoLevel(): number {
      return this.#inner.forcedAutoLevel;
    }

    get nextAutoLevel(): number {
      return this.#sammyLevel() ?? this.#inner.nextAutoLevel;
    }

    set nextAutoLevel(level: number) {
      this.#inner.nextAutoLevel = level;
    }

    resetEstimator(abrEwmaDefaultEstimate?: number): void {
      this.#inner.resetEstimator(abrEwmaDefaultEstimate);
    }

    destroy(): void {
      this.#inner.destroy();
    }
  };
}

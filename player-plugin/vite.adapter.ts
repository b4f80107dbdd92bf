/**
 * The two library builds every adapter makes: `vite build`, the ESM modules for bundlers, one per
 * package entry (dist/sammy.js, dist/pace-only.js; dependencies stay external), and `vite build
 * --mode script`, the self-contained script-tag bundle (`dist/sammy.iife.js`, pace-only mode
 * included). Neither contains the player: the page brings its own.
 */
import { defineConfig, type UserConfigFnObject } from 'vite';

/** `globalName`: the script-tag bundle's global; `player`: the player's package, kept out of both builds. */
export function adapterBuilds(globalName: string, player: RegExp): UserConfigFnObject {
  return defineConfig(({ mode }) =>
    mode === 'script'
      ? {
          build: {
            emptyOutDir: false,
            sourcemap: true,
            lib: { entry: 'src/script.ts', name: globalName, formats: ['iife'], fileName: () => 'sammy.iife.js' },
          },
        }
      : {
          build: {
            sourcemap: true,
            lib: { entry: { sammy: 'src/index.ts', 'pace-only': 'src/pace-only.ts' }, formats: ['es'] },
            rollupOptions: { external: [/^@svta\//, /^sammy-pacing-/, player] },
          },
        },
  );
}

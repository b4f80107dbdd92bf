import { defineConfig } from 'vite';

/**
 * Two library builds: `vite build` makes the ESM modules for bundlers, one per package entry
 * (dist/sammy.js, dist/pace-only.js; dependencies stay external), `vite build --mode script` the
 * self-contained script-tag bundle (global `SammyShaka`, pace-only mode included). Neither
 * contains shaka-player: the page brings its own.
 */
export default defineConfig(({ mode }) =>
  mode === 'script'
    ? {
        build: {
          emptyOutDir: false,
          sourcemap: true,
          lib: { entry: 'src/script.ts', name: 'SammyShaka', formats: ['iife'], fileName: () => 'sammy.iife.js' },
        },
      }
    : {
        build: {
          sourcemap: true,
          lib: { entry: { sammy: 'src/index.ts', 'pace-only': 'src/pace-only.ts' }, formats: ['es'] },
          rollupOptions: { external: [/^@svta\//, /^sammy-pacing-/, /^shaka-player/] },
        },
      },
);

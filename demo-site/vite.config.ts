import { defineConfig } from 'vitest/config';

// The local origin (`npm start`) serves the built page, media and records on one port.
const LOCAL_ORIGIN = 'http://localhost:8080';

export default defineConfig({
  // Relative asset URLs: the built page works under any path the origin mounts it at.
  base: './',
  // One chunk per player (src/players/load.ts imports each dynamically); each player library is
  // 0.5-0.9 MB minified and loaded whole by the page that plays it, so the warning limit is above that.
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 1200 },
  // `vite` dev: forward media and delivery records to a running origin so the page stays same-origin.
  server: {
    proxy: {
      '/media': LOCAL_ORIGIN,
      '/sammy': LOCAL_ORIGIN,
    },
  },
  test: { environment: 'node', include: ['test/**/*.test.ts'] },
});

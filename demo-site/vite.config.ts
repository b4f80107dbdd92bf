import { defineConfig } from 'vitest/config';

// The local origin (`npm start`) serves the built page, media and records on one port.
const LOCAL_ORIGIN = 'http://localhost:8080';

export default defineConfig({
  // Relative asset URLs: the built page works under any path the origin mounts it at.
  base: './',
  // dash.js alone is ~800 kB minified and the page needs it at once: no point splitting it.
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

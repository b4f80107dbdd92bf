import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The lab page, bundled into lab/dist/page and served by the lab server: the player-neutral entry, and one
// chunk per player (dash.js, Shaka, hls.js, each with its adapter) that the entry imports only for its arms.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  build: { outDir: fileURLToPath(new URL('../dist/page', import.meta.url)), emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 2000 },
});

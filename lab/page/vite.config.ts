import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

// The lab pages, bundled into lab/dist/page and served by the lab server: the player page (the
// player-neutral entry, and one chunk per player — dash.js, Shaka, hls.js, each with its adapter — that
// the entry imports only for its arms), the game stream's page (sender and receiver) and the demo page.
export default defineConfig({
  root: here('.'),
  base: './',
  logLevel: 'warn',
  build: {
    outDir: here('../dist/page'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    rollupOptions: { input: { index: here('index.html'), game: here('game.html'), demo: here('demo.html') } },
  },
});

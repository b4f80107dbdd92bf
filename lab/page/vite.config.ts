import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The lab page, bundled with dash.js and the plugin into lab/dist/page, served by the lab server.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  build: { outDir: fileURLToPath(new URL('../dist/page', import.meta.url)), emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 2000 },
});

import { defineConfig } from 'vitest/config';

// The smoke test drives real namespaces, Chromium and servers: one file, one worker, long timeouts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 150_000,
    hookTimeout: 240_000,
  },
});

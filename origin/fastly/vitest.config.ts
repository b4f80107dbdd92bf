import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // The first run builds falco (Go, about a minute).
    hookTimeout: 600_000,
  },
});

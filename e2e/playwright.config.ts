import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '@sammy/chromium';

export default defineConfig({
  testDir: 'tests',
  // One worker, tests in order: the machine has two cores, and pacing measurements need quiet.
  workers: 1,
  fullyParallel: false,
  // A flaky pass would hide exactly the timing bugs these tests exist for.
  retries: 0,
  forbidOnly: true,
  timeout: 90_000,
  expect: { timeout: 30_000 },
  globalSetup: './src/global-setup.ts',
  // A stop for a hung run, not a speed target: the whole run takes ~10 min on two cores (64 tests),
  // and the first run encodes the test ladder (~1-2 min) before any test starts.
  globalTimeout: 25 * 60_000,
  outputDir: 'test-results',
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    browserName: 'chromium',
    headless: true,
    // The system Chromium (found here, or a clear error saying how to get one): Playwright's own download cannot work offline.
    launchOptions: { executablePath: findChromium(), args: [...CHROMIUM_ARGS] },
    viewport: { width: 1280, height: 1400 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});

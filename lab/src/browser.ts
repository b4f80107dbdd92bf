/**
 * Headless Chromium inside the client namespace. Playwright talks to the browser over a pipe,
 * so the browser can live in another network namespace: a two-line wrapper enters it and execs
 * Debian's chromium with Playwright's arguments.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.SAMMY_CHROMIUM ?? '/usr/bin/chromium';

/** Flags that keep Chromium quiet on a closed network (sammy-notes §4), plus autoplay without a gesture. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--autoplay-policy=no-user-gesture-required',
  // Two sessions in one browser must not be throttled as background tabs.
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

export interface NamespacedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchInNamespace(ns: string): Promise<NamespacedBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get install -y chromium`);
  const dir = mkdtempSync(join(tmpdir(), 'sammy-lab-chromium-'));
  const wrapper = join(dir, 'chromium-in-ns');
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec '${ns}' '${CHROMIUM}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  const browser = await chromium.launch({ executablePath: wrapper, headless: true, args: CHROMIUM_FLAGS, timeout: 30_000 });
  return {
    browser,
    async close() {
      await browser.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

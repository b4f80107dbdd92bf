/**
 * Headless Chromium inside the client namespace. Playwright talks to the browser over a pipe,
 * so the browser can live in another network namespace: a two-line wrapper enters it and execs
 * the system Chromium with Playwright's arguments.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, findChromium } from '@sammy/chromium';
import { chromium, type Browser } from 'playwright-core';

/** The shared closed-network flags, plus: two sessions in one browser must not be throttled as background tabs. */
export const LAB_CHROMIUM_ARGS = [
  ...CHROMIUM_ARGS,
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
  // The game stream's peers (game/ pages) offer host candidates only (no STUN/TURN server). Chromium
  // otherwise hides a host candidate's address behind a random mDNS name (<uuid>.local), which the
  // other namespace cannot resolve, and the call never connects. With this feature off the SDP
  // carries 10.247.x.x (checked in each run: GameRun's localCandidates). Chromium reads only the last
  // --disable-features, so any other feature to disable goes into this one.
  '--disable-features=WebRtcHideLocalIpsWithMdns',
];

export interface NamespacedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/** `extraArgs`: more Chromium flags (with --http2, the one key it trusts: --ignore-certificate-errors-spki-list). */
export async function launchInNamespace(ns: string, extraArgs: readonly string[] = []): Promise<NamespacedBrowser> {
  const executable = findChromium();
  const dir = mkdtempSync(join(tmpdir(), 'sammy-lab-chromium-'));
  const wrapper = join(dir, 'chromium-in-ns');
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec '${ns}' '${executable}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  const browser = await chromium.launch({
    executablePath: wrapper,
    headless: true,
    args: [...LAB_CHROMIUM_ARGS, ...extraArgs],
    timeout: 30_000,
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

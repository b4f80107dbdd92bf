/**
 * The system Chromium: Playwright's own browser download cannot work on the project's machines
 * (no internet), so the end-to-end tests and the lab bench drive Debian's `chromium` (or any
 * Chrome the environment names) with the same flags.
 */
import { accessSync, constants } from 'node:fs';

/** Where a Debian/Ubuntu package or a Chrome install puts the binary, in order of preference. */
const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'] as const;

/**
 * Flags for a closed network (sammy-notes §4): no sandbox (root in a container), no GPU, no
 * background traffic to Google services, and autoplay without a click so playback starts by itself.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--autoplay-policy=no-user-gesture-required',
] as const;

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** CHROMIUM_PATH if set (it must exist), else the first candidate that exists; throws with how to get one. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.CHROMIUM_PATH?.trim();
  if (explicit) {
    if (isExecutable(explicit)) return explicit;
    throw new Error(
      `CHROMIUM_PATH=${explicit} is not an executable file. Point it at a Chromium or Chrome binary, or unset it to use ${CHROMIUM_CANDIDATES.join(', ')}.`,
    );
  }
  const found = CHROMIUM_CANDIDATES.find(isExecutable);
  if (found) return found;
  throw new Error(
    `No Chromium found (looked for ${CHROMIUM_CANDIDATES.join(', ')}). A real Chromium is needed: ` +
      'install it with `apt-get install chromium` (Debian/Ubuntu), or set CHROMIUM_PATH to a Chromium or Chrome binary. ' +
      "Playwright's own browser download is not used.",
  );
}

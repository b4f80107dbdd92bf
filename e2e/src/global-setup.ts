/**
 * Once per run: check the packages are built, generate the test ladder (first run only, a minute or
 * two), and start the reference origin on a free loopback port. The origin runs in the runner's own
 * process, apart from the workers that drive Chromium, so their load does not delay its delivery
 * bookkeeping. Workers find it through SAMMY_E2E_ORIGIN.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig } from '@playwright/test';
import { REPO_ROOT } from './repo-root.js';
import { ORIGIN_ENV } from './origin-env.js';

/** What the tests load, with the workspace that builds it. */
const BUILT = [
  ['origin/server/dist/index.js', '@sammy/origin-server'],
  ['origin/content/dist/index.js', '@sammy/test-content'],
  ['player-plugin/dashjs/dist/sammy.js', 'sammy-pacing-dashjs'],
  ['demo-site/dist/index.html', '@sammy/demo-site'],
] as const;

export default async function globalSetup(_config: FullConfig): Promise<() => Promise<void>> {
  const missing = BUILT.filter(([file]) => !existsSync(join(REPO_ROOT, file)));
  if (missing.length > 0) {
    throw new Error(
      `The end-to-end tests need built packages; missing ${missing.map(([f]) => f).join(', ')}. ` +
        `Run \`npm run build\` at the repository root (or ${missing.map(([, w]) => `npm run build -w ${w}`).join(', ')}).`,
    );
  }
  // Imported only now: both resolve to their dist, checked above.
  const { ensureContent } = await import('@sammy/test-content');
  const { startOrigin } = await import('@sammy/origin-server');
  await ensureContent();
  // cubic, as most CDNs run it (the machine's default here is bbr, which sets its own pacing rate).
  const origin = await startOrigin({ port: 0, host: '127.0.0.1', congestionControl: 'cubic' });
  process.env[ORIGIN_ENV] = origin.url;
  return async () => {
    await origin.close();
  };
}

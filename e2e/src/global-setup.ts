/**
 * Once per run: check the packages are built, generate the test ladder (first run only, a minute or
 * two), and start the reference origin twice on free loopback ports: plain HTTP/1.1, and HTTPS
 * (HTTP/2 and HTTP/1.1 by ALPN) with the development certificate. The origins run in the runner's own
 * process, apart from the workers that drive Chromium, so their load does not delay their delivery
 * bookkeeping. Workers find them through SAMMY_E2E_ORIGIN, SAMMY_E2E_H2_ORIGIN and the certificate's
 * SPKI hash SAMMY_E2E_H2_SPKI, its PEM file SAMMY_E2E_H2_CERT (src/origin-env.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig } from '@playwright/test';
import { REPO_ROOT } from './repo-root.js';
import { H2_CERT_ENV, H2_ORIGIN_ENV, H2_SPKI_ENV, ORIGIN_ENV } from './origin-env.js';

/** What the tests load, with the workspace that builds it. */
const BUILT = [
  ['origin/server/dist/index.js', '@sammy/origin-server'],
  ['origin/content/dist/index.js', '@sammy/test-content'],
  ['player-plugin/dashjs/dist/sammy.js', 'sammy-pacing-dashjs'],
  ['player-plugin/hlsjs/dist/sammy.iife.js', 'sammy-pacing-hlsjs'],
  ['player-plugin/shaka/dist/sammy.iife.js', 'sammy-pacing-shaka'],
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
  const { devCertificate, startOrigin } = await import('@sammy/origin-server');
  await ensureContent();
  // cubic, as most CDNs run it (the machine's default here is bbr, which sets its own pacing rate).
  // Generated into .cache/tls on first use, then reused. It names localhost: the URL says localhost,
  // the socket listens on 127.0.0.1.
  const tls = await devCertificate();
  if (!tls.certPath)
    throw new Error("devCertificate() returned no certPath: the tests read the certificate to fetch the HTTPS origin's records");
  const origin = await startOrigin({ port: 0, host: '127.0.0.1', congestionControl: 'cubic' });
  const h2Origin = await startOrigin({ port: 0, host: '127.0.0.1', congestionControl: 'cubic', tls });
  process.env[ORIGIN_ENV] = origin.url;
  process.env[H2_ORIGIN_ENV] = h2Origin.url;
  process.env[H2_SPKI_ENV] = tls.spkiHash;
  process.env[H2_CERT_ENV] = tls.certPath;
  return async () => {
    await Promise.all([origin.close(), h2Origin.close()]);
  };
}

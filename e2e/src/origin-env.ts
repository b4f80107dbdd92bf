import { readFileSync } from 'node:fs';
import type { LaunchOptions } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '@sammy/chromium';

/** The environment variable through which global setup tells the workers where the origin listens. */
export const ORIGIN_ENV = 'SAMMY_E2E_ORIGIN';
/** The HTTPS origin (HTTP/2 and HTTP/1.1 by ALPN, the development certificate), e.g. https://localhost:41234. */
export const H2_ORIGIN_ENV = 'SAMMY_E2E_H2_ORIGIN';
/**
 * base64 SHA-256 of the HTTPS origin's certificate's SubjectPublicKeyInfo: what Chromium's
 * `--ignore-certificate-errors-spki-list` trusts (that one key, nothing else).
 */
export const H2_SPKI_ENV = 'SAMMY_E2E_H2_SPKI';
/** Path of the HTTPS origin's certificate (PEM), for the tests' own requests to it (the records). */
export const H2_CERT_ENV = 'SAMMY_E2E_H2_CERT';

function required(name: string, what: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(
      `${name} is not set: ${what} is started by the global setup (src/global-setup.ts); run the tests with \`npm test -w @sammy/e2e\`.`,
    );
  return value;
}

export function originUrl(): string {
  return required(ORIGIN_ENV, 'the origin');
}

/** The HTTPS (h2) origin's URL. */
export function h2OriginUrl(): string {
  return required(H2_ORIGIN_ENV, 'the HTTPS origin');
}

/** The HTTPS origin's certificate, PEM. */
export function h2Certificate(): string {
  return readFileSync(required(H2_CERT_ENV, 'the HTTPS origin'), 'utf8');
}

/** The HTTPS origin's certificate's SPKI hash (Chromium's --ignore-certificate-errors-spki-list). */
export function h2SpkiHash(): string {
  return required(H2_SPKI_ENV, 'the HTTPS origin');
}

/**
 * Chromium trusting exactly the HTTPS origin's development certificate, by its public-key hash
 * (`--ignore-certificate-errors-spki-list`), never every certificate (`--ignore-certificate-errors`):
 * for `test.use({ launchOptions })`. The workers inherit the global setup's environment; the runner
 * also loads a spec to list its tests before the setup has run, when the hash is not known yet (a
 * test checks `h2SpkiHash()` before it relies on it).
 */
export function trustingDevCertificate(): LaunchOptions {
  return {
    executablePath: findChromium(),
    args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${process.env[H2_SPKI_ENV] ?? ''}`],
  };
}

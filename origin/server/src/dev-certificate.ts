/**
 * A development certificate for `https://localhost`: generated on first use (selfsigned, EC P-256),
 * cached in the repository's gitignored `.cache/tls/`, renewed when it is about to expire. Browsers
 * do not trust it; Chromium can be told to by its public-key hash (`spkiHash`, for
 * `--ignore-certificate-errors-spki-list`), which trusts this one key and nothing else.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@sammy/test-content';
import { generate } from 'selfsigned';

export const DEFAULT_CERT_DIR = join(REPO_ROOT, '.cache', 'tls');
/** Days a generated certificate is valid for (browsers refuse more than 398). */
export const DEV_CERT_DAYS = 90;
/** A cached certificate with less than this left is replaced. */
const RENEW_BEFORE_MS = 24 * 3600 * 1000;

export interface TlsCredentials {
  key: string;
  cert: string;
  /** base64 SHA-256 of the certificate's SubjectPublicKeyInfo (Chromium's --ignore-certificate-errors-spki-list). */
  spkiHash: string;
  certPath?: string;
  keyPath?: string;
}

export function spkiHash(certPem: string): string {
  const der = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}

function usable(certPem: string): boolean {
  try {
    const c = new X509Certificate(certPem);
    return Date.parse(c.validTo) - Date.now() > RENEW_BEFORE_MS && c.checkHost('localhost') !== undefined;
  } catch {
    return false;
  }
}

/** The cached development certificate for localhost, 127.0.0.1 and ::1; generated when missing or expiring. */
export async function devCertificate(dir: string = DEFAULT_CERT_DIR): Promise<TlsCredentials> {
  const certPath = join(dir, 'localhost.crt');
  const keyPath = join(dir, 'localhost.key');
  if (existsSync(certPath) && existsSync(keyPath)) {
    const cert = readFileSync(certPath, 'utf8');
    if (usable(cert)) return { key: readFileSync(keyPath, 'utf8'), cert, spkiHash: spkiHash(cert), certPath, keyPath };
  }
  const notAfter = new Date(Date.now() + DEV_CERT_DAYS * 24 * 3600 * 1000);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  chmodSync(keyPath, 0o600);
  writeFileSync(certPath, pems.cert);
  return { key: pems.private, cert: pems.cert, spkiHash: spkiHash(pems.cert), certPath, keyPath };
}

/** Credentials from the operator's own PEM files (--cert, --key). */
export function certificateFromFiles(certPath: string, keyPath: string): TlsCredentials {
  const cert = readFileSync(certPath, 'utf8');
  return { cert, key: readFileSync(keyPath, 'utf8'), spkiHash: spkiHash(cert), certPath, keyPath };
}

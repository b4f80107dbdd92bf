/**
 * The lab's TLS certificate for `--http2`: self-signed (selfsigned, EC P-256, as the reference origin's
 * development certificate), naming the lab server's address (SERVER_IP) and loopback, cached in the
 * repository's gitignored `.cache/lab/tls/` and replaced when it is about to expire or no longer names
 * the address asked for.
 *
 * Why not the origin's `devCertificate()`: it names localhost, 127.0.0.1 and ::1 only, and the lab
 * server listens on SERVER_IP. Chromium, told to trust the key (`--ignore-certificate-errors-spki-list`),
 * would accept it under any name, but the HTTP neighbour is a Node client that checks the name against
 * the certificate it is given as `ca` (and should: it trusts exactly this certificate, for this address).
 * With the address in the certificate, both clients verify it as any client verifies a server.
 */
import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from '@sammy/test-content';
import { spkiHash } from '@sammy/origin-server';
import { generate } from 'selfsigned';

export const LAB_CERT_DIR = join(REPO_ROOT, '.cache', 'lab', 'tls');
/** Days a generated certificate is valid for (browsers refuse more than 398). */
const CERT_DAYS = 90;
/** A cached certificate with less than this left is replaced. */
const RENEW_BEFORE_MS = 24 * 3600 * 1000;

export interface LabCertificate {
  /** PEM files, read by the lab server (key, cert) and the HTTP neighbour (cert, as its only CA). */
  certPath: string;
  keyPath: string;
  cert: string;
  key: string;
  /** base64 SHA-256 of the SubjectPublicKeyInfo: Chromium's --ignore-certificate-errors-spki-list. */
  spkiHash: string;
}

/** Valid for a day more at least, and names every address in `ips`. */
function usable(certPem: string, ips: readonly string[]): boolean {
  try {
    const c = new X509Certificate(certPem);
    return Date.parse(c.validTo) - Date.now() > RENEW_BEFORE_MS && ips.every((ip) => c.checkIP(ip) !== undefined);
  } catch {
    return false;
  }
}

/**
 * The cached lab certificate for `ip` (plus localhost, 127.0.0.1 and ::1, for checks without the
 * namespaces); generated when missing, expiring or naming other addresses.
 */
export async function labCertificate(ip: string, dir: string = LAB_CERT_DIR): Promise<LabCertificate> {
  if (isIP(ip) === 0) throw new Error(`lab certificate: ${ip} is not an IP address`);
  const ips = [...new Set([ip, '127.0.0.1', '::1'])];
  const certPath = join(dir, 'lab-server.crt');
  const keyPath = join(dir, 'lab-server.key');
  if (existsSync(certPath) && existsSync(keyPath)) {
    const cert = readFileSync(certPath, 'utf8');
    if (usable(cert, ips)) return { certPath, keyPath, cert, key: readFileSync(keyPath, 'utf8'), spkiHash: spkiHash(cert) };
  }
  const pems = await generate([{ name: 'commonName', value: `sammy lab ${ip}` }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + CERT_DAYS * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2 as const, value: 'localhost' }, ...ips.map((a) => ({ type: 7 as const, ip: a }))] },
    ],
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  chmodSync(keyPath, 0o600);
  writeFileSync(certPath, pems.cert);
  return { certPath, keyPath, cert: pems.cert, key: pems.private, spkiHash: spkiHash(pems.cert) };
}

/** The reference origin: demo site and media from one handler chain (Express's router), over HTTP/1.1 or HTTPS with HTTP/2, every response paced. */
export {
  startOrigin,
  createOriginApp,
  DEFAULT_PORT,
  DEFAULT_HTTPS_PORT,
  DEFAULT_HOST,
  DEFAULT_MAX_HEADER_BYTES,
  MEDIA_PATH,
  type StartOriginOptions,
  type RunningOrigin,
  type OriginHandler,
} from './server.js';
export { DEFAULT_MAX_CONNECTIONS_PER_CLIENT } from './client-limits.js';
export { devCertificate, certificateFromFiles, spkiHash, DEFAULT_CERT_DIR, type TlsCredentials } from './dev-certificate.js';
export { originMetricsRegistry } from './metrics-registry.js';

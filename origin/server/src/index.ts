/** The reference origin: demo site and media from one Express app, every response paced. */
export { startOrigin, createOriginApp, isLoopbackHost, DEFAULT_PORT, DEFAULT_HOST, DEFAULT_MAX_HEADER_BYTES, MEDIA_PATH, type StartOriginOptions, type RunningOrigin } from './server.js';

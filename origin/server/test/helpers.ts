/** The reference server on a free loopback port, with the middleware tests' clients. */
import { join } from 'node:path';
import { silentLogger } from 'sammy-pacing-express';
import { startOrigin, type RunningOrigin, type StartOriginOptions } from '../src/server.js';

export { cmcdQuery, get, waitFor } from '../../middleware/test/helpers.js';

export async function startTestOrigin(mediaDir: string, opts: StartOriginOptions = {}): Promise<RunningOrigin> {
  return startOrigin({ port: 0, mediaDir, siteDir: join(mediaDir, 'no-site'), logger: silentLogger, ...opts });
}

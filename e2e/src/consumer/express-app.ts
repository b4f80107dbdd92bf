/**
 * A user's Express server in TypeScript (Express 5, or Express 4 at the floor of the middleware's peer
 * range): the middleware README's snippet verbatim as src/server.ts, compiled by strict `tsc` (Node's
 * module resolution) and run with `node`, serving a few segment files from ./media as the snippet's
 * `express.static('media')` expects.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../repo-root.js';
import { codeBlock, shellCommands } from './markdown.js';

export const MIDDLEWARE_README = join(REPO_ROOT, 'origin', 'middleware', 'README.md');

export async function readMiddlewareReadme(): Promise<{ installCommands: string[]; snippet: string }> {
  const markdown = await readFile(MIDDLEWARE_README, 'utf8');
  return {
    installCommands: shellCommands(codeBlock(markdown, 'Install', ['sh', 'bash', 'shell'], '.cache/packages/sammy-pacing-express-')),
    snippet: codeBlock(markdown, 'Middleware in your own Express app', ['ts', 'typescript', 'js', 'javascript'], 'sammyPacing('),
  };
}

/** The app's own toolchain (a TypeScript user's choice, not the README's): compiler and typings. */
const PACKAGE_JSON = {
  name: 'express-media-server',
  private: true,
  version: '0.0.0',
  type: 'module',
  scripts: { build: 'tsc', start: 'node dist/server.js' },
  devDependencies: { typescript: '~7.0.2', '@types/node': '^22.20.5', '@types/express': '^5.0.6', '@types/cors': '^2.8.19' },
};

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    // Check the packages' .d.ts files too: a broken declaration must fail here.
    skipLibCheck: false,
    types: ['node'],
    rootDir: 'src',
    outDir: 'dist',
  },
  include: ['src'],
};

/**
 * Segment files: one to warm a connection with (the kernel does not pace a connection's first ten
 * segments, 64 KB each on loopback: 1 MB uses them up), and a large one (≥ 1 s at the tested rtp).
 */
export const WARM_FILE = 'video/warm.m4s';
export const LARGE_FILE = 'video/seg-1.m4s';
export const LARGE_BYTES = 3_000_000;

/**
 * `expressTypes`: the app's `@types/express` range, which must match the Express it installs (Express 4
 * has its own typings, `^4.17`).
 */
export function expressAppFiles(snippet: string, entryPoints: readonly string[], expressTypes = PACKAGE_JSON.devDependencies['@types/express']): Record<string, string | Uint8Array> {
  const manifest = { ...PACKAGE_JSON, devDependencies: { ...PACKAGE_JSON.devDependencies, '@types/express': expressTypes } };
  return {
    'package.json': JSON.stringify(manifest, null, 2) + '\n',
    'tsconfig.json': JSON.stringify(TSCONFIG, null, 2) + '\n',
    'src/server.ts': snippet,
    // Every entry point of the server-side packages, resolved the way Node resolves them.
    'src/entry-points.ts': entryPoints.map((spec, i) => `export * as entry${i} from '${spec}';`).join('\n') + '\n',
    [`media/${WARM_FILE}`]: randomBytes(1024 * 1024),
    [`media/${LARGE_FILE}`]: randomBytes(LARGE_BYTES),
  };
}

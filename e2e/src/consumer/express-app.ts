/**
 * A user's Express server (Express 5, or Express 4 at the floor of the middleware's peer range): the
 * middleware README's snippet verbatim as server.mjs, run as written with `node server.mjs`, serving a
 * few segment files from the ./media folder it names. Strict `tsc` checks it too (as JavaScript, with
 * checkJs), as a TypeScript project would see the same lines.
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
    snippet: codeBlock(markdown, 'Middleware in your own Express app', ['js', 'javascript', 'mjs'], 'sammyPacing('),
  };
}

/** The app's type checker (the test's, not the README's: the snippet runs without it): compiler and typings. */
const PACKAGE_JSON = {
  name: 'express-media-server',
  private: true,
  version: '0.0.0',
  type: 'module',
  scripts: { check: 'tsc', start: 'node server.mjs' },
  devDependencies: { typescript: '~7.0.2', '@types/node': '^22.20.5', '@types/express': '^5.0.6', '@types/cors': '^2.8.19' },
};

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    // The snippet is JavaScript: check it as a TypeScript user's editor would.
    allowJs: true,
    checkJs: true,
    noEmit: true,
    // Check the packages' .d.ts files too: a broken declaration must fail here.
    skipLibCheck: false,
    types: ['node'],
  },
  include: ['src', 'server.mjs'],
};

/** The folder the snippet serves at /media/ (its `mediaDir`). */
export const MEDIA_DIR = 'media';

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
export function expressAppFiles(
  snippet: string,
  entryPoints: readonly string[],
  expressTypes = PACKAGE_JSON.devDependencies['@types/express'],
): Record<string, string | Uint8Array> {
  const manifest = { ...PACKAGE_JSON, devDependencies: { ...PACKAGE_JSON.devDependencies, '@types/express': expressTypes } };
  return {
    'package.json': JSON.stringify(manifest, null, 2) + '\n',
    'tsconfig.json': JSON.stringify(TSCONFIG, null, 2) + '\n',
    'server.mjs': snippet,
    // Every entry point of the server-side packages, resolved the way Node resolves them.
    'src/entry-points.ts': entryPoints.map((spec, i) => `export * as entry${i} from '${spec}';`).join('\n') + '\n',
    [`${MEDIA_DIR}/${WARM_FILE}`]: randomBytes(1024 * 1024),
    [`${MEDIA_DIR}/${LARGE_FILE}`]: randomBytes(LARGE_BYTES),
  };
}

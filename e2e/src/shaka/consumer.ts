/**
 * docs/players.md's "Use it with Shaka Player" section, read at test time (never a copy that could
 * drift): its install command and its snippet, for the consumer test (tests/consumer-shaka.spec.ts).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../repo-root.js';
import { codeBlock, shellCommands } from '../consumer/markdown.js';

export const SHAKA_README_SECTION = 'Use it with Shaka Player';

export async function readShakaReadme(): Promise<{ appCommands: string[]; snippet: string }> {
  const markdown = await readFile(join(REPO_ROOT, 'docs', 'players.md'), 'utf8');
  return {
    appCommands: shellCommands(codeBlock(markdown, SHAKA_README_SECTION, ['sh', 'bash', 'shell'], '.cache/packages/sammy-pacing-shaka-')),
    snippet: codeBlock(markdown, SHAKA_README_SECTION, ['ts', 'typescript', 'js', 'javascript'], 'attach('),
  };
}

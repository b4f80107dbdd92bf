/** docs/players.md's hls.js section, read at test time: its install command and its snippet, verbatim. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../repo-root.js';
import { codeBlock, shellCommands } from './markdown.js';

export const HLSJS_README_SECTION = 'Use it with hls.js';

export async function readHlsjsReadme(): Promise<{ appCommands: string[]; snippet: string }> {
  const markdown = await readFile(join(REPO_ROOT, 'docs', 'players.md'), 'utf8');
  return {
    appCommands: shellCommands(codeBlock(markdown, HLSJS_README_SECTION, ['sh', 'bash', 'shell'], '.cache/packages/sammy-pacing-hlsjs-')),
    snippet: codeBlock(markdown, HLSJS_README_SECTION, ['ts', 'typescript', 'js', 'javascript'], 'attach('),
  };
}

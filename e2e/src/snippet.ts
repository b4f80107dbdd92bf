/**
 * The README's "Use it in your dash.js player" snippet, taken from the README at test time (never
 * copied), built into a bare page by Vite exactly as a web developer's bundler would build it.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README_PATH = join(REPO_ROOT, 'README.md');
const SNIPPET_HEADING = 'Use it in your dash.js player';

/** The first ```js block under the `## <heading>` section of a Markdown text. */
function extractJsBlock(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^#{1,6}\s/.test(l) && l.replace(/^#+\s*/, '').trim() === heading);
  if (start < 0) throw new Error(`README has no heading "${heading}"`);
  let inBlock = false;
  const block: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!inBlock && /^#{1,6}\s/.test(line)) break; // next section: no js block in ours
    if (!inBlock && /^```(js|javascript)\s*$/.test(line.trim())) {
      inBlock = true;
      continue;
    }
    if (inBlock && line.trim().startsWith('```')) return block.join('\n') + '\n';
    if (inBlock) block.push(line);
  }
  throw new Error(`README section "${heading}" has no complete \`\`\`js block`);
}

export async function readReadmeSnippet(): Promise<string> {
  return extractJsBlock(await readFile(README_PATH, 'utf8'), SNIPPET_HEADING);
}

/** A page with nothing but a <video> and the snippet as its module entry. */
const BARE_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sammy README snippet</title><link rel="icon" href="data:,"></head>
<body>
<video muted playsinline width="640" height="360"></video>
<script type="module" src="./main.js"></script>
</body>
</html>
`;

/** Package directory of a dependency, as this package resolves it (its exports may hide package.json). */
function packageDir(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === name) return dir;
    } catch {
      // no package.json here: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package directory of ${name}`);
    dir = parent;
  }
}

/**
 * Builds the snippet into `outDir` (index.html + assets). The sources go to a temp dir outside the
 * workspace, so `dashjs` and `sammy-pacing-dashjs` are mapped to this workspace's copies, the way
 * `npm install dashjs sammy-pacing-dashjs` would provide them.
 */
export async function buildSnippetApp(snippet: string, workDir: string, outDir: string): Promise<void> {
  const { build } = await import('vite');
  await rm(workDir, { recursive: true, force: true });
  await mkdir(workDir, { recursive: true });
  await writeFile(join(workDir, 'index.html'), BARE_PAGE);
  await writeFile(join(workDir, 'main.js'), snippet);
  await build({
    configFile: false,
    root: workDir,
    base: './',
    logLevel: 'warn',
    resolve: {
      alias: [
        { find: /^dashjs$/, replacement: packageDir('dashjs') },
        { find: /^sammy-pacing-dashjs$/, replacement: packageDir('sammy-pacing-dashjs') },
      ],
    },
    build: { outDir, emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 2000, reportCompressedSize: false },
  });
}

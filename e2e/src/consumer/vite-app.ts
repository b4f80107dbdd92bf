/**
 * A Vite + TypeScript app in the shape `npm create vite@latest -- --template vanilla-ts` makes
 * (create-vite 9.3: its package.json scripts and devDependencies, its tsconfig.json), whose
 * src/main.ts is a README's snippet and whose page holds a <video> instead of the template's counter.
 * The root README's quick start (dash.js) brings its own index.html and vite.config.ts, read here too.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../repo-root.js';
import { codeBlock, shellCommands } from './markdown.js';

export const README_SECTION = 'Quick start: your own player, paced';

export interface ReadmeInstructions {
  /** The commands to run in a clone (they must include `npm run pack:packages`). */
  cloneCommands: string[];
  /** The commands that make the app (`npm create vite …`) and install into it (one `npm install` of tarballs and registry packages). */
  appCommands: string[];
  /** The dash.js snippet, as printed (src/main.ts). */
  snippet: string;
  /** The page, as printed (index.html). */
  indexHtml: string;
  /** The dev-server wiring, as printed (vite.config.ts). */
  viteConfig: string;
}

/** The root README's quick start: what a user copies, verbatim. */
export async function readDashjsReadme(): Promise<ReadmeInstructions> {
  const markdown = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  return {
    cloneCommands: shellCommands(codeBlock(markdown, README_SECTION, ['sh', 'bash', 'shell'], 'pack:packages')),
    appCommands: shellCommands(codeBlock(markdown, README_SECTION, ['sh', 'bash', 'shell'], '.cache/packages/sammy-pacing-dashjs-')),
    snippet: codeBlock(markdown, README_SECTION, ['ts', 'typescript', 'js', 'javascript'], 'attach('),
    indexHtml: codeBlock(markdown, README_SECTION, ['html'], '<video'),
    viteConfig: codeBlock(markdown, README_SECTION, ['ts', 'typescript', 'js', 'javascript'], 'proxy'),
  };
}

const PACKAGE_JSON = {
  name: 'vite-typescript-starter',
  private: true,
  version: '0.0.0',
  type: 'module',
  scripts: { dev: 'vite', build: 'tsc && vite build', preview: 'vite preview' },
  devDependencies: { typescript: '~7.0.2', vite: '^8.3.4' },
};

/** The template's tsconfig.json; TypeScript 7 is strict by default, `strict` says so explicitly. */
const TSCONFIG = `{
  "compilerOptions": {
    "target": "es2023",
    "module": "esnext",
    "lib": ["ES2023", "DOM"],
    "types": ["vite/client"],
    "allowArbitraryExtensions": true,
    "skipLibCheck": true,
    "strict": true,

    /* Bundler mode */
    "moduleResolution": "bundler",
    "allowImportingTsExtensions": true,
    "verbatimModuleSyntax": true,
    "moduleDetection": "force",
    "noEmit": true,

    /* Linting */
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "erasableSyntaxOnly": true,
    "noFallthroughCasesInSwitch": true
  },
  "include": ["src"]
}
`;

const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <link rel="icon" href="data:," />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>Vite + TS</title>
  </head>
  <body>
    <video muted playsinline width="640" height="360"></video>
    <script type="module" src="/src/main.ts"></script>
  </body>
</html>
`;

/**
 * A module importing every entry point (`exports` subpath) of the given packages, and a tsconfig that
 * checks it without skipLibCheck (the template skips .d.ts files, which would hide a broken one) and
 * without Node's types (these packages run in the page).
 */
export function typesCheckFiles(entryPoints: readonly string[]): Record<string, string> {
  const imports = entryPoints.map((spec, i) => `import * as entry${i} from '${spec}';`);
  return {
    'types-check/entry-points.ts': `${imports.join('\n')}\n\nexport const entries = [${entryPoints.map((_, i) => `entry${i}`).join(', ')}];\n`,
    'types-check/tsconfig.json': JSON.stringify(
      { extends: '../tsconfig.json', compilerOptions: { skipLibCheck: false, types: [] }, include: ['.'] },
      null,
      2,
    ),
  };
}

/** `files`: a README's own files (index.html, vite.config.ts), in place of the template's. */
export function viteAppFiles(snippet: string, entryPoints: readonly string[], files: Record<string, string> = {}): Record<string, string> {
  return {
    'package.json': JSON.stringify(PACKAGE_JSON, null, 2) + '\n',
    'tsconfig.json': TSCONFIG,
    'index.html': INDEX_HTML,
    'src/main.ts': snippet,
    ...typesCheckFiles(entryPoints),
    ...files,
  };
}

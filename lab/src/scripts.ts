/**
 * How to start the bench's own Node programs inside a namespace: the compiled file when the bench
 * runs from dist/, the TypeScript source through tsx when it runs from src/ (Vitest).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const LAB_DIR = fileURLToPath(new URL('..', import.meta.url));

export function nodeScript(relative: string): string[] {
  const js = fileURLToPath(new URL(`./${relative}.js`, import.meta.url));
  if (existsSync(js)) return [process.execPath, js];
  const ts = fileURLToPath(new URL(`./${relative}.ts`, import.meta.url));
  return [process.execPath, '--import', 'tsx', ts];
}

/** The built lab page (vite build → dist/page). */
export const PAGE_DIR = fileURLToPath(new URL('../dist/page', import.meta.url));

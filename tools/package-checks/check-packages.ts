/**
 * The publishable packages as a user would get them: each one packed from its built dist (run
 * after `npm run build`, as `npm test` does), its tarball linted by publint and by
 * arethetypeswrong (ESM-only profile: every package is `"type": "module"` with `import`
 * conditions only), and the packed set run through `npm publish --dry-run`. Any message fails.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

/** The workspaces published to the registry, in dependency order. */
export const PUBLISHED = [
  'sammy-pacing-protocol',
  'sammy-pacing-core',
  'sammy-pacing-dashjs',
  'sammy-pacing-shaka',
  'sammy-pacing-hlsjs',
  'sammy-pacing-express',
];

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules/.bin', name);
const run = (command: string, args: string[]) =>
  execFileSync(command, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const out = mkdtempSync(join(tmpdir(), 'sammy-packages-'));
const failures: string[] = [];
try {
  const packed = JSON.parse(
    run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out, ...PUBLISHED.flatMap((w) => ['-w', w])]),
  ) as Array<{ name: string; filename: string }>;
  for (const { name, filename } of packed) {
    const tarball = join(out, filename);
    const bytes = readFileSync(tarball);
    const pkg = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'));
    const { messages } = await publint({
      pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
      level: 'suggestion',
      strict: true,
    });
    for (const m of messages) failures.push(`${name}: publint ${m.type}: ${formatMessage(m, pkg) ?? m.code}`);
    try {
      run(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii', '--no-color']);
    } catch (error) {
      failures.push(`${name}: arethetypeswrong:\n${(error as { stdout?: string }).stdout ?? error}`);
    }
    try {
      run('npm', ['publish', '--dry-run', '--ignore-scripts', tarball]);
    } catch (error) {
      failures.push(`${name}: npm publish --dry-run:\n${(error as { stderr?: string }).stderr ?? error}`);
    }
    console.log(`${name}: packed ${filename} (${bytes.byteLength} bytes), ${messages.length} publint message(s)`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
for (const failure of failures) console.error(failure);
console.log(
  failures.length === 0
    ? `publint, arethetypeswrong and npm publish --dry-run: clean on ${PUBLISHED.length} packages`
    : `${failures.length} problem(s)`,
);
if (failures.length > 0) process.exitCode = 1;

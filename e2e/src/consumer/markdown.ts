/**
 * Code blocks of a README, read at test time so that what the consumer tests run is exactly what the
 * README prints (never a copy that could drift).
 */

export interface CodeBlock {
  /** The fence's info string, e.g. `ts`, `sh` (empty when none). */
  lang: string;
  code: string;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;

/**
 * The fenced code blocks of the section under the heading whose text is `heading`, up to the next
 * heading of the same or a higher level (a `# comment` inside a code block is not a heading).
 */
export function codeBlocks(markdown: string, heading: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => HEADING.exec(line)?.[2] === heading);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = HEADING.exec(lines[start]!)![1]!.length;
  const blocks: CodeBlock[] = [];
  let open: { fence: string; lang: string; lines: string[] } | undefined;
  for (const line of lines.slice(start + 1)) {
    if (open) {
      if (line.trim() === open.fence) {
        blocks.push({ lang: open.lang, code: open.lines.join('\n') + '\n' });
        open = undefined;
      } else {
        open.lines.push(line);
      }
      continue;
    }
    const fence = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (fence) {
      open = { fence: fence[1]!, lang: fence[2] ?? '', lines: [] };
      continue;
    }
    const h = HEADING.exec(line);
    if (h && h[1]!.length <= level) break;
  }
  if (open) throw new Error(`section "${heading}" has an unclosed code block`);
  return blocks;
}

/** The one code block of the section in one of `langs` that contains `marker`; an error if none or several. */
export function codeBlock(markdown: string, heading: string, langs: readonly string[], marker: string): string {
  const found = codeBlocks(markdown, heading).filter((b) => langs.includes(b.lang) && b.code.includes(marker));
  if (found.length !== 1) {
    throw new Error(`section "${heading}" has ${found.length} \`\`\`${langs.join('/')} blocks containing "${marker}", expected 1`);
  }
  return found[0]!.code;
}

/** Shell lines of a code block: `\` continuations joined, comments and blank lines dropped. */
export function shellCommands(code: string): string[] {
  return code
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line.length > 0);
}

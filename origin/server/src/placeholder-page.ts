/** What `/` shows when the demo site has not been built. */
import { RECORDS_PATH } from 'sammy-pacing-protocol';
import { DEFAULT_MANIFEST_PATH } from '@sammy/test-content/media-paths';

export function placeholderPage(siteDir: string, recordsServed: boolean): string {
  const escaped = siteDir.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sammy origin</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto">
<h1>Sammy origin</h1>
<p>The demo site is not built (nothing at <code>${escaped}</code>).
Build it with <code>npm run build</code> at the repository root, then reload.</p>
<p>The origin is serving: test ladder at <a href="${DEFAULT_MANIFEST_PATH}">${DEFAULT_MANIFEST_PATH}</a>${
    recordsServed
      ? `,
delivery records at <a href="${RECORDS_PATH}">${RECORDS_PATH}</a>`
      : ''
  }.</p>
</body></html>
`;
}

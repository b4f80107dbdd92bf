#!/usr/bin/env node
/** `npm run content -w @sammy/test-content [-- --force] [-- --out DIR]`: generate the test ladder. */
import { parseArgs } from 'node:util';
import { ensureContent } from './generate.js';

const { values } = parseArgs({ options: { force: { type: 'boolean' }, out: { type: 'string' } } });
const result = await ensureContent({ dir: values.out, force: values.force });
if (!result.generated) console.log(`sammy: test ladder already at ${result.dir} (use --force to re-encode)`);
console.log(result.manifestPath);

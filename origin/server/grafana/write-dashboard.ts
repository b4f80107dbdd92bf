/** Writes the dashboard (dashboard.ts) as the JSON Grafana imports. */
import { writeFileSync } from 'node:fs';
import { dashboard } from './dashboard.js';

const file = new URL('./sammy-origin-dashboard.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(dashboard, null, 2)}\n`);
console.log(`wrote ${file.pathname}`);
